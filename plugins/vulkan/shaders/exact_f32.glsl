// f32 arithmetic and comparisons that stay exact where the device flushes f32 subnormals (Vulkan
// lets a driver without DenormPreserve do so: NVIDIA's does). Used by the backend's "_exact"
// shader variants (eltwise.comp, eltwise_narrow.comp; device.cpp picks them) and by the glsl
// emitter's own writers (shader_common.cpp pastes this file's text): one copy of each op.
// oi_eq/oi_ne/oi_lt/oi_le/oi_gt/oi_ge on the bits (NaN: only ne holds; -0 == +0); oi_add,
// oi_sub and oi_mul: the hardware result where no operand is subnormal and the result is normal
// (or zero, inf, NaN from such operands), else computed exactly from the bits.
// No #include and no #version: the emitter pastes the text into its shaders as it is.
#ifndef OI_EXACT_F32_GLSL
#define OI_EXACT_F32_GLSL
bool oi_nan(float a) { return (floatBitsToUint(a) & 0x7fffffffu) > 0x7f800000u; }
// An order of the non-NaN values on the bits: -0 and +0 equal, negatives reversed.
uint oi_key(float a) {
  uint b = floatBitsToUint(a);
  if ((b & 0x7fffffffu) == 0u) return 0x80000000u;
  return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}
bool oi_eq(float a, float b) { return !oi_nan(a) && !oi_nan(b) && oi_key(a) == oi_key(b); }
bool oi_ne(float a, float b) { return !oi_eq(a, b); }
bool oi_lt(float a, float b) { return !oi_nan(a) && !oi_nan(b) && oi_key(a) < oi_key(b); }
bool oi_le(float a, float b) { return !oi_nan(a) && !oi_nan(b) && oi_key(a) <= oi_key(b); }
bool oi_gt(float a, float b) { return oi_lt(b, a); }
bool oi_ge(float a, float b) { return oi_le(b, a); }
bool oi_subnormal(uint b) { return (b & 0x7f800000u) == 0u && (b & 0x007fffffu) != 0u; }
// The value times 2^64, exactly (|value| < 2^61).
float oi_up64(uint b) {
  if ((b & 0x7f800000u) != 0u) return uintBitsToFloat(b + (64u << 23));
  float m = float(b & 0x007fffffu) * uintBitsToFloat(42u << 23);  // m * 2^-85
  return uintBitsToFloat(floatBitsToUint(m) | (b & 0x80000000u));
}
float oi_add(float a, float b) {
  precise float s = a + b;
  uint ua = floatBitsToUint(a), ub = floatBitsToUint(b), us = floatBitsToUint(s);
  if (!oi_subnormal(ua) && !oi_subnormal(ub) && (us & 0x7f800000u) != 0u) return s;
  // A subnormal beside a value of 2^61 or more is under half its ulp (and inf, NaN stay).
  if (max(ua & 0x7fffffffu, ub & 0x7fffffffu) >= ((127u + 61u) << 23)) return s;
  // Scaled by 2^64 all are normal: the sum rounds as the unscaled one, and is exact where
  // that one is subnormal.
  precise float t = oi_up64(ua) + oi_up64(ub);
  uint ut = floatBitsToUint(t);
  if ((ut & 0x7f800000u) >= (65u << 23)) return uintBitsToFloat(ut - (64u << 23));
  uint m = uint(abs(t) * uintBitsToFloat((127u + 85u) << 23));  // t * 2^85: an integer
  return uintBitsToFloat((ut & 0x80000000u) | m);
}
float oi_sub(float a, float b) { return oi_add(a, uintBitsToFloat(floatBitsToUint(b) ^ 0x80000000u)); }
float oi_mul(float a, float b) {
  precise float p = a * b;
  uint ua = floatBitsToUint(a), ub = floatBitsToUint(b), pb = floatBitsToUint(p);
  if (!oi_subnormal(ua) && !oi_subnormal(ub) && (pb & 0x7f800000u) != 0u) return p;
  uint xa = ua & 0x7fffffffu, xb = ub & 0x7fffffffu, sign = (ua ^ ub) & 0x80000000u;
  if (xa > 0x7f800000u || xb > 0x7f800000u) return p;             // NaN
  if (xa == 0x7f800000u || xb == 0x7f800000u)                      // inf times a nonzero
    return (xa == 0u || xb == 0u) ? p : uintBitsToFloat(sign | 0x7f800000u);
  if (xa == 0u || xb == 0u) return uintBitsToFloat(sign);
  // Both finite and nonzero: significands of 24 bits, value = m * 2^(e - 150).
  int ea = int(xa >> 23), eb = int(xb >> 23);
  uint ma = xa & 0x007fffffu, mb = xb & 0x007fffffu;
  if (ea == 0) { int n = 23 - findMSB(ma); ma <<= uint(n); ea = 1 - n; } else ma |= 0x00800000u;
  if (eb == 0) { int n = 23 - findMSB(mb); mb <<= uint(n); eb = 1 - n; } else mb |= 0x00800000u;
  uint hi, lo;
  umulExtended(ma, mb, hi, lo);  // M = ma * mb in [2^46, 2^48): value = M * 2^(ea + eb - 300)
  int top = hi >= 0x8000u ? 47 : 46;
  int biased = ea + eb - 300 + top + 127;
  if (biased >= 255) return uintBitsToFloat(sign | 0x7f800000u);
  // Keep M >> s: 24 bits for a normal result, the multiples of 2^-149 for a subnormal one.
  int s = biased >= 1 ? top - 23 : 151 - ea - eb;
  if (s >= 50) return uintBitsToFloat(sign);  // under half the smallest subnormal
  uint q, r, h;  // the kept bits; the rest and its half compared as (hi word, lo word) pairs
  bool up;
  if (s < 32) {
    q = (lo >> uint(s)) | (hi << uint(32 - s));
    r = lo & ((1u << uint(s)) - 1u);
    h = 1u << uint(s - 1);
    up = r > h || (r == h && (q & 1u) != 0u);
  } else {
    uint t = uint(s - 32);
    q = hi >> t;
    r = t == 0u ? 0u : hi & ((1u << t) - 1u);
    h = t == 0u ? 0u : 1u << (t - 1u);
    // the rest is (r, lo), its half (h, 0) or, for t = 0, (0, 0x80000000)
    if (t == 0u) up = lo > 0x80000000u || (lo == 0x80000000u && (q & 1u) != 0u);
    else up = r > h || (r == h && (lo != 0u || (q & 1u) != 0u));
  }
  uint bits = biased >= 1 ? (uint(biased - 1) << 23) + q : q;  // q's bit 23 adds the 1
  return uintBitsToFloat(sign | (bits + (up ? 1u : 0u)));
}
#endif  // OI_EXACT_F32_GLSL
