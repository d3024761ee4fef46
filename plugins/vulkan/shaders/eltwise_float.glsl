// float_op for the float type FT: the result as FT (64-bit) or as its bits (32-bit).
#if defined(WIDTH_32)
#include "div_f32.glsl"
#endif
// -DEXACT_F32 (the "_exact" variants, for devices that flush f32 subnormals: device.cpp): add,
// sub, mul and relu on exact_f32.glsl's helpers, so subnormal operands and results stay exact.
#if defined(WIDTH_32) && defined(EXACT_F32)
#include "exact_f32.glsl"
#define F_ADD(x, z) oi_add(x, z)
#define F_SUB(x, z) oi_sub(x, z)
#define F_MUL(x, z) oi_mul(x, z)
#define F_GE(x, z) oi_ge(x, z)
#define F_LT(x, z) oi_lt(x, z)
#define F_GT(x, z) oi_gt(x, z)
#define F_IS_ZERO(r) ((F_BITS(r) & 0x7fffffffu) == 0u)
#else
#define F_ADD(x, z) ((x) + (z))
#define F_SUB(x, z) ((x) - (z))
#define F_MUL(x, z) ((x) * (z))
#define F_GE(x, z) ((x) >= (z))
#define F_LT(x, z) ((x) < (z))
#define F_GT(x, z) ((x) > (z))
#define F_IS_ZERO(r) ((r) == F_ZERO)
#endif
#if defined(WIDTH_32)
#define F_RESULT uint
#define F_RET(v) F_BITS(v)
#define F_SETTING(k) F_FROM(p[6u + 2u * (k)])
#define F_SETTING_BITS(k) p[6u + 2u * (k)]
#else
#define F_RESULT FT
#define F_RET(v) (v)
#define F_SETTING(k) SETTING(k)
#define F_SETTING_BITS(k) SETTING(k)
#endif

F_RESULT float_op(FT x, FT z) {
  if (OP == OP_ADD) return F_RET(F_ADD(x, z));
  if (OP == OP_SUB) return F_RET(F_SUB(x, z));
  if (OP == OP_MUL) return F_RET(F_MUL(x, z));
  if (OP == OP_DIV) {
#if defined(WIDTH_32)
    // On bits: a subnormal divisor is not zero, even where the device flushes it (div_f32.glsl).
    if ((F_BITS(z) & 0x7fffffffu) == 0u && flag(HAS_MASK)) return F_SETTING_BITS(0);
    return div_f32_bits(F_BITS(x), F_BITS(z));
#else
    if (z == F_ZERO && flag(HAS_MASK)) return F_SETTING_BITS(0);
    return F_RET(x / z);
#endif
  }
  // relu: a zero result is +0.0; the clamps keep NaN because NaN compares false.
#if defined(WIDTH_32)
  // HAS_PLAIN (the host's, for f32 relu with alpha = +-0 and no clamp): max(x, 0) as a select
  // of the bits, exact on every device (a subnormal stays, a negative one gives +0), so it needs
  // no "_exact" variant. -inf (0 * -inf = NaN) and NaN take the formula below.
  if (flag(HAS_PLAIN)) {
    const uint xb = F_BITS(x);
    if (xb <= 0x7f800000u) return xb;
    if (xb - 0x80000000u < 0x7f800000u) return 0u;  // -0 to the largest negative finite
  }
#endif
#if defined(WIDTH_32) && defined(EXACT_F32)
  // The helpers only where x or a setting is subnormal (a uniform test for the settings): else
  // the hardware's compares and product are exact, or flush only a subnormal result (ops.md).
  if (!oi_subnormal(F_BITS(x)) && !oi_subnormal(F_SETTING_BITS(0)) &&
      !oi_subnormal(F_SETTING_BITS(1)) && !oi_subnormal(F_SETTING_BITS(2))) {
    precise FT q = x >= F_ZERO ? x : F_SETTING(0) * x;
    uint qb = q == F_ZERO ? 0u : F_BITS(q);
    if (q < F_SETTING(1)) {
      q = F_SETTING(1);
      qb = F_SETTING_BITS(1);
    }
    if (q > F_SETTING(2)) qb = F_SETTING_BITS(2);
    return qb;
  }
#endif
  FT r = F_GE(x, F_ZERO) ? x : F_MUL(F_SETTING(0), x);
  F_RESULT bits = F_IS_ZERO(r) ? F_RET(F_ZERO) : F_RET(r);
  if (F_LT(r, F_SETTING(1))) {
    r = F_SETTING(1);
    bits = F_SETTING_BITS(1);
  }
  if (F_GT(r, F_SETTING(2))) bits = F_SETTING_BITS(2);
  return bits;
}
