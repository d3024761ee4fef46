// The i64/u64 ops of the catalog (ops.md), written once over the W64 primitives: those of
// int64_emulated.glsl (32-bit words, no shaderInt64) with -DINT64_EMULATED, else those of
// int64_native.glsl (uint64_t). Values enter and leave as (low, high) words, two's complement;
// `sgn` says whether they are i64 (or a narrower signed integer widened) or u64.
#if defined(INT64_EMULATED)
#include "int64_emulated.glsl"
#else
#include "int64_native.glsl"
#endif

uvec2 i64_add(uvec2 x, uvec2 z) { return w64_words(w64_add(w64(x), w64(z))); }
uvec2 i64_sub(uvec2 x, uvec2 z) { return w64_words(w64_sub(w64(x), w64(z))); }
uvec2 i64_mul(uvec2 x, uvec2 z) { return w64_words(w64_mul(w64(x), w64(z))); }
uvec2 i64_neg(uvec2 x) { return w64_words(w64_sub(w64_zero(), w64(x))); }
uvec2 i64_not(uvec2 x) { return w64_words(w64_not(w64(x))); }
uvec2 i64_and(uvec2 x, uvec2 z) { return w64_words(w64_and(w64(x), w64(z))); }
uvec2 i64_or(uvec2 x, uvec2 z) { return w64_words(w64_or(w64(x), w64(z))); }
uvec2 i64_xor(uvec2 x, uvec2 z) { return w64_words(w64_xor(w64(x), w64(z))); }
uint i64_popcount(uvec2 x) { return w64_popcount(w64(x)); }

bool i64_negative(uvec2 x, bool sgn) { return sgn && w64_sign(w64(x)); }
// x < z as signed (sgn) or unsigned values: signed order is unsigned order with bit 63 flipped.
bool i64_less(uvec2 x, uvec2 z, bool sgn) {
  const uvec2 flip = uvec2(0u, sgn ? 0x80000000u : 0u);
  return w64_ult(w64(x ^ flip), w64(z ^ flip));
}
uvec2 i64_min(uvec2 x, uvec2 z, bool sgn) { return i64_less(z, x, sgn) ? z : x; }
uvec2 i64_max(uvec2 x, uvec2 z, bool sgn) { return i64_less(x, z, sgn) ? z : x; }
uvec2 i64_abs(uvec2 x, bool sgn) { return i64_negative(x, sgn) ? i64_neg(x) : x; }  // MIN stays
// sign as the i8 bits of -1, 0 or 1.
uint i64_sign_op(uvec2 x, bool sgn) {
  return i64_negative(x, sgn) ? 0xffu : (x.x | x.y) != 0u ? 1u : 0u;
}

// shl wraps; shr is arithmetic for signed values, logical for unsigned. The validator keeps
// `bits` below 64; a larger count shifts every bit out (0, or the sign's fill for signed shr).
uvec2 i64_shl(uvec2 x, uint bits) {
  return bits >= 64u ? uvec2(0u) : w64_words(w64_shl(w64(x), bits));
}
uvec2 i64_shr(uvec2 x, uint bits, bool sgn) {
  if (sgn) return w64_words(w64_shr_s(w64(x), min(bits, 63u)));
  return bits >= 64u ? uvec2(0u) : w64_words(w64_shr_u(w64(x), bits));
}

// clamp to [lo, hi] where given (lo first, then hi, as ops.md's clamp).
uvec2 i64_clamp(uvec2 x, uvec2 lo, uvec2 hi, bool has_lo, bool has_hi, bool sgn) {
  uvec2 r = x;
  if (has_lo) r = i64_max(r, lo, sgn);
  if (has_hi) r = i64_min(r, hi, sgn);
  return r;
}
// relu of a signed value: x, or alpha * x (wrapping) below 0, then clamped.
uvec2 i64_relu(uvec2 x, uvec2 alpha, uvec2 lo, uvec2 hi, bool has_lo, bool has_hi) {
  const uvec2 r = i64_negative(x, true) ? i64_mul(alpha, x) : x;
  return i64_clamp(r, lo, hi, has_lo, has_hi, true);
}

// div (truncating toward zero), floor_div (toward -inf), rem (a - trunc(a / b) b, the
// dividend's sign). A zero divisor gives `mask` for div and floor_div where the op has one
// (div_by_zero_mask), else 0; INT64_MIN / -1 wraps to INT64_MIN, its rem is 0. Signed values
// divide as magnitudes (|INT64_MIN| = 2^63 is exact as an unsigned value) and take their signs.
const uint I64_DIV = 0u, I64_FLOOR_DIV = 1u, I64_REM = 2u;
uvec2 i64_divide(uint kind, uvec2 x, uvec2 z, bool sgn, bool has_mask, uvec2 mask) {
  if ((z.x | z.y) == 0u) return kind != I64_REM && has_mask ? mask : uvec2(0u);
  const bool xneg = i64_negative(x, sgn), zneg = i64_negative(z, sgn);
  W64 r;
  const W64 q = w64_udivrem(w64(xneg ? i64_neg(x) : x), w64(zneg ? i64_neg(z) : z), r);
  if (kind == I64_REM) return xneg ? i64_neg(w64_words(r)) : w64_words(r);
  uvec2 quotient = w64_words(q);
  if (xneg == zneg) return quotient;
  quotient = i64_neg(quotient);
  const bool inexact = !w64_eq(r, w64_zero());
  return kind == I64_FLOOR_DIV && inexact ? i64_sub(quotient, uvec2(1u, 0u)) : quotient;
}
