// float_op for the float type FT: the result as FT (64-bit) or as its bits (32-bit).
#if defined(WIDTH_32)
#include "div_f32.glsl"
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
  if (OP == OP_ADD) return F_RET(x + z);
  if (OP == OP_SUB) return F_RET(x - z);
  if (OP == OP_MUL) return F_RET(x * z);
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
  FT r = x >= F_ZERO ? x : F_SETTING(0) * x;
  F_RESULT bits = r == F_ZERO ? F_RET(F_ZERO) : F_RET(r);
  if (r < F_SETTING(1)) {
    r = F_SETTING(1);
    bits = F_SETTING_BITS(1);
  }
  if (r > F_SETTING(2)) bits = F_SETTING_BITS(2);
  return bits;
}
