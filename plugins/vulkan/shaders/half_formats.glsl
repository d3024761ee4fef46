// f16 and bf16 bit patterns to and from f32 with integer code: exact widening, and one rounding
// to nearest even (overflow to inf; NaN stays NaN, quiet, keeping the payload's high bits), the
// same as plugin_api/include/openinfer/float_formats.hpp and on every driver (no shaderFloat16 needed).
#ifndef OPENINFER_HALF_FORMATS_GLSL
#define OPENINFER_HALF_FORMATS_GLSL

float widen_half(uint h, bool bf16) {
  if (bf16) return uintBitsToFloat(h << 16);
  uint s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 31u) return uintBitsToFloat(s | 0x7f800000u | (m << 13));
  if (e == 0u) return uintBitsToFloat(s | floatBitsToUint(float(m) * 5.9604644775390625e-8));
  return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
}

// From f32 bits (not a float: a flushing device would lose subnormal inputs on the way).
uint narrow_half_bits(uint x, bool bf16) {
  uint ax = x & 0x7fffffffu;
  if (bf16) {
    if (ax > 0x7f800000u) return (x >> 16) | 0x40u;
    return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  }
  uint s = (x >> 16) & 0x8000u;
  if (ax > 0x7f800000u) return s | 0x7e00u | ((ax >> 13) & 0x3ffu);
  if (ax >= 0x477ff000u) return s | 0x7c00u;  // 65520 and up round to inf
  if (ax >= 0x38800000u) {                     // a normal f16: rebias, round off 13 bits
    uint r = ax - 0x38000000u;
    return s | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13);
  }
  uint e = ax >> 23;
  if (e < 102u) return s;  // below 2^-25 (or exactly it: a tie to 0)
  uint m = (ax & 0x7fffffu) | 0x800000u, shift = 126u - e;  // units of 2^-24
  uint q = m >> shift, rest = m & ((1u << shift) - 1u), tie = 1u << (shift - 1u);
  if (rest > tie || (rest == tie && (q & 1u) != 0u)) ++q;
  return s | q;
}

uint narrow_half(float v, bool bf16) { return narrow_half_bits(floatBitsToUint(v), bf16); }

// f8 (OCP E5M2, an f16's high byte) from f32 bits, rounded once as above; NaN keeps the
// payload's two high bits and gets the quiet bit. Widening is widen_half(bits << 8, false).
uint narrow_f8_bits(uint x) {
  const uint s = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return s | 0x7eu | ((ax >> 21) & 0x3u);
  if (ax >= 0x47700000u) return s | 0x7cu;  // 61440 and up round to inf
  if (ax >= 0x38800000u) {                   // a normal f8: rebias, round off 21 bits
    const uint r = ax - 0x38000000u;
    return s | ((r + 0xfffffu + ((r >> 21) & 1u)) >> 21);
  }
  const uint e = ax >> 23;
  if (e < 110u) return s;  // below 2^-17 (or exactly it: a tie to 0)
  const uint m = (ax & 0x7fffffu) | 0x800000u, shift = 134u - e;  // units of 2^-16
  uint q = m >> shift;
  const uint rest = m & ((1u << shift) - 1u), tie = 1u << (shift - 1u);
  if (rest > tie || (rest == tie && (q & 1u) != 0u)) ++q;
  return s | q;
}

// The float dtypes of the row, spatial, reduction, attention and rope shaders by their ew.comp
// codes (0 f32, 3 f16, 4 bf16, 13 f8): bytes an element, f32 value of the raw bits, and the raw
// bits of an f32 value rounded once.
uint float_bytes(uint dt) { return dt == 0u ? 4u : dt == 13u ? 1u : 2u; }
float widen_float(uint raw, uint dt) {
  if (dt == 0u) return uintBitsToFloat(raw);
  if (dt == 13u) return widen_half(raw << 8, false);
  return widen_half(raw, dt == 4u);
}
uint narrow_float(float v, uint dt) {
  if (dt == 0u) return floatBitsToUint(v);
  if (dt == 13u) return narrow_f8_bits(floatBitsToUint(v));
  return narrow_half(v, dt == 4u);
}
// Element k of a uint[] buffer of `bytes`-sized elements, zero-extended.
#define RAW_AT(buf, k, bytes)                                          \
  ((bytes) == 4u   ? buf[k]                                            \
   : (bytes) == 2u ? (buf[(k) >> 1] >> (((k) & 1u) * 16u)) & 0xffffu  \
                   : (buf[(k) >> 2] >> (((k) & 3u) * 8u)) & 0xffu)

#endif
