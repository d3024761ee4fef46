// IEEE f32 division on bit patterns, for drivers that divide as a * rcp(b) and flush subnormal
// operands (NVIDIA): 0 / subnormal would be 0 / 0 = NaN and subnormal / -0 NaN instead of -inf,
// and rcp(b) of |b| > 2^126 is flushed to 0. Here the operands are split exactly, with integer
// code, into sign, exponent and a significand in [1, 2); the significands are divided (a safe
// range for any reciprocal), the quotient refined once with its residual, and scaled by powers
// of two so that at most one rounding lands in the subnormal range. Specials as IEEE: NaN in,
// NaN out; x / 0 = inf; 0 / 0, inf / inf = NaN; finite / inf = 0; zeros and infs signed.
#ifndef OPENINFER_DIV_F32_GLSL
#define OPENINFER_DIV_F32_GLSL

// 2^k for k in [-126, 127], built from bits (exact).
float pow2_f32(int k) { return uintBitsToFloat(uint(k + 127) << 23); }

// The significand of a finite nonzero magnitude `m` (bits, no sign) in [1, 2) as a float, its
// exponent in `e`; subnormals are normalized first.
float split_f32(uint m, out int e) {
  uint field = m >> 23, frac = m & 0x7fffffu;
  if (field == 0u) {  // subnormal: frac != 0
    int shift = 23 - findMSB(frac);
    frac = (frac << uint(shift)) & 0x7fffffu;
    e = -126 - shift;
  } else {
    e = int(field) - 127;
  }
  return uintBitsToFloat(0x3f800000u | frac);
}

uint div_f32_bits(uint a, uint b) {
  const uint sign = (a ^ b) & 0x80000000u;
  const uint ma = a & 0x7fffffffu, mb = b & 0x7fffffffu;
  if (ma > 0x7f800000u) return a | 0x400000u;  // NaN (quieted)
  if (mb > 0x7f800000u) return b | 0x400000u;
  if (ma == 0x7f800000u) return mb == 0x7f800000u ? 0x7fc00000u : sign | 0x7f800000u;
  if (mb == 0x7f800000u) return sign;                           // finite / inf
  if (mb == 0u) return ma == 0u ? 0x7fc00000u : sign | 0x7f800000u;
  if (ma == 0u) return sign;
  int ea, eb;
  const float sa = split_f32(ma, ea), sb = split_f32(mb, eb);
  float q = sa / sb;  // in (0.5, 2)
  q = fma(fma(-q, sb, sa), 1.0 / sb, q);
  const int e = ea - eb;
  if (e > 128) return sign | 0x7f800000u;  // q * 2^e >= 2^128
  if (e < -150) return sign;               // q * 2^e < 2^-150: rounds to 0
  // q * 2^e1 is exact and normal; the one rounding comes with 2^e2 (e2 in [-50, 1]).
  const int e1 = clamp(e, -100, 127), e2 = e - e1;
  precise float r = q * pow2_f32(e1);
  r = r * pow2_f32(e2);
  return sign | floatBitsToUint(r);
}

#endif
