// IEEE f32 division on bit patterns, exactly rounded on any device: drivers may divide as
// a * rcp(b), flush subnormal operands (NVIDIA: 0 / subnormal would be 0 / 0 = NaN), and may
// split fma() into a multiply and an add (Vulkan allows it; lavapipe does), so no float
// arithmetic is trusted: the significands are divided by integer long division (26 quotient
// bits and a sticky bit) and rounded to nearest even once, into the normal or subnormal range.
// Specials as IEEE: NaN in, NaN out; x / 0 = inf; 0 / 0, inf / inf = NaN; finite / inf = 0;
// zeros and infs signed.
#ifndef OPENINFER_DIV_F32_GLSL
#define OPENINFER_DIV_F32_GLSL

// 2^k for k in [-126, 127], built from bits (exact).
float pow2_f32(int k) { return uintBitsToFloat(uint(k + 127) << 23); }

// The 24-bit significand of a finite nonzero magnitude `m` (bits, no sign), in [2^23, 2^24),
// its exponent in `e`; subnormals are normalized first.
uint significand_f32(uint m, out int e) {
  uint field = m >> 23, frac = m & 0x7fffffu;
  if (field == 0u) {  // subnormal: frac != 0
    const int shift = 23 - findMSB(frac);
    e = -126 - shift;
    return frac << uint(shift);
  }
  e = int(field) - 127;
  return 0x800000u | frac;
}

// The significand of a finite nonzero magnitude `m` (bits, no sign) in [1, 2) as a float, its
// exponent in `e`.
float split_f32(uint m, out int e) {
  return uintBitsToFloat(0x3f800000u | (significand_f32(m, e) & 0x7fffffu));
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
  uint r = significand_f32(ma, ea);
  const uint d = significand_f32(mb, eb);
  int e = ea - eb;
  if (r < d) {  // the quotient's leading bit at 2^e
    r <<= 1;
    e -= 1;
  }
  // q: 26 bits of r / d in [1, 2) (1 integer bit, 23 fraction bits, 2 more); r < 2d < 2^25.
  uint q = 0u;
  for (int i = 0; i < 26; ++i) {
    q <<= 1;
    if (r >= d) {
      r -= d;
      q |= 1u;
    }
    r <<= 1;
  }
  const bool sticky = r != 0u;
  const int biased = e + 127;
  if (biased >= 255) return sign | 0x7f800000u;
  // The bits below the result's last place: 2, and more for a subnormal result.
  const int shift = 2 + max(1 - biased, 0);
  if (shift > 26) return sign;  // below half the smallest subnormal
  uint mant = q >> uint(shift);
  const uint rest = q & ((1u << uint(shift)) - 1u), halfway = 1u << uint(shift - 1);
  if (rest > halfway || (rest == halfway && (sticky || (mant & 1u) != 0u))) mant += 1u;
  // A normal result's implicit bit carries into the exponent field (as does rounding up to the
  // next binade or to inf).
  return sign | ((biased >= 1 ? uint(biased - 1) << 23 : 0u) + mant);
}

#endif
