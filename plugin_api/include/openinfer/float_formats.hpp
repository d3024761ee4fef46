// Narrow float formats: IEEE binary16 (f16), bfloat16 (bf16) and OCP E5M2 (f8), header-only in
// the plugin SDK so core, every backend and every emitter convert with the same code.
// Every narrowing conversion rounds to nearest, ties to even, overflows to +-inf,
// keeps NaN a NaN (payload bits kept where they fit, else the quiet bit set) and
// produces subnormals where the target has them. Widening is exact. The conversions work on the
// integer bits, so the result does not depend on the compiler's _Float16 support or on the FPU's
// rounding mode.
#pragma once

#include <bit>
#include <cstdint>

namespace oi {

// The bit manipulation behind them (not part of the interface).
namespace float_formats_detail {

// A binary floating-point layout: sign bit, then exp_bits of biased exponent, then man_bits
// of stored mantissa. All formats here have IEEE semantics (all-ones exponent is inf/NaN).
struct Format {
  int exp_bits;
  int man_bits;

  constexpr int bias() const { return (1 << (exp_bits - 1)) - 1; }
  constexpr uint64_t max_exp() const { return (uint64_t{1} << exp_bits) - 1; }
  constexpr uint64_t man_mask() const { return (uint64_t{1} << man_bits) - 1; }
  constexpr int sign_shift() const { return exp_bits + man_bits; }
  constexpr uint64_t inf_bits() const { return max_exp() << man_bits; }
};

constexpr Format kF64{11, 52};
constexpr Format kF32{8, 23};
constexpr Format kF16{5, 10};
constexpr Format kBF16{8, 7};
constexpr Format kF8{5, 2};

// Rounds `bits` in format `src` to the narrower format `dst`: nearest, ties to even,
// overflow to inf, NaN stays NaN with the quiet bit set.
inline constexpr uint64_t narrow(uint64_t bits, Format src, Format dst) {
  const uint64_t sign = (bits >> src.sign_shift()) & 1;
  const uint64_t exp = (bits >> src.man_bits) & src.max_exp();
  uint64_t man = bits & src.man_mask();
  const uint64_t sign_out = sign << dst.sign_shift();

  if (exp == src.max_exp()) {
    if (man == 0) return sign_out | dst.inf_bits();
    // Keep the payload's high bits; the quiet bit guarantees a nonzero mantissa.
    const uint64_t payload = man >> (src.man_bits - dst.man_bits);
    const uint64_t quiet = uint64_t{1} << (dst.man_bits - 1);
    return sign_out | dst.inf_bits() | payload | quiet;
  }
  if (exp == 0 && man == 0) return sign_out;

  // value = sig * 2^(e - src.man_bits), with sig's leading one at bit src.man_bits.
  int64_t e;
  uint64_t sig;
  if (exp == 0) {
    const int lead = std::bit_width(man) - 1;
    sig = man << (src.man_bits - lead);
    e = int64_t{1} - src.bias() - (src.man_bits - lead);
  } else {
    sig = man | (uint64_t{1} << src.man_bits);
    e = int64_t(exp) - src.bias();
  }

  const int64_t biased = e + dst.bias();
  if (biased >= int64_t(dst.max_exp())) return sign_out | dst.inf_bits();

  // Normal results keep dst.man_bits + 1 significant bits; subnormal ones fewer.
  int64_t shift = src.man_bits - dst.man_bits;
  if (biased < 1) shift += 1 - biased;
  // sig < 2^(src.man_bits + 1) <= half of the last kept bit: below half the smallest subnormal.
  if (shift > src.man_bits + 1) return sign_out;

  uint64_t rounded = sig >> shift;
  const uint64_t rest = sig & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (rounded & 1))) ++rounded;

  // A carry out of the mantissa moves into the exponent field, which is exactly right
  // (subnormal -> smallest normal, max finite -> inf).
  if (biased < 1) return sign_out | rounded;
  return sign_out | ((uint64_t(biased - 1) << dst.man_bits) + rounded);
}

// Exact conversion of `bits` in format `src` to the wider format `dst`.
inline constexpr uint64_t widen(uint64_t bits, Format src, Format dst) {
  const uint64_t sign = (bits >> src.sign_shift()) & 1;
  const uint64_t exp = (bits >> src.man_bits) & src.max_exp();
  const uint64_t man = bits & src.man_mask();
  const uint64_t sign_out = sign << dst.sign_shift();
  const int shift = dst.man_bits - src.man_bits;

  if (exp == src.max_exp()) return sign_out | dst.inf_bits() | (man << shift);
  if (exp == 0) {
    if (man == 0) return sign_out;
    const int lead = std::bit_width(man) - 1;
    const int64_t e = int64_t{1} - src.bias() - (src.man_bits - lead);
    // Same exponent range (bf16 -> f32): the value stays subnormal, only the mantissa widens.
    if (e + dst.bias() < 1) return sign_out | (man << (shift + dst.bias() - src.bias()));
    // Otherwise move the leading one to the implicit position of a normal number.
    const uint64_t frac = (man << (dst.man_bits - lead)) & dst.man_mask();
    return sign_out | (uint64_t(e + dst.bias()) << dst.man_bits) | frac;
  }
  const uint64_t e = exp - uint64_t(src.bias()) + uint64_t(dst.bias());
  return sign_out | (e << dst.man_bits) | (man << shift);
}

inline uint64_t f32_bits(float v) {
  return std::bit_cast<uint32_t>(v);
}
inline uint64_t f64_bits(double v) {
  return std::bit_cast<uint64_t>(v);
}
inline float to_f32(uint64_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits));
}

}  // namespace float_formats_detail

inline uint16_t f32_to_f16_bits(float v) {
  using namespace float_formats_detail;
  return uint16_t(narrow(f32_bits(v), kF32, kF16));
}
inline uint16_t f64_to_f16_bits(double v) {
  using namespace float_formats_detail;
  return uint16_t(narrow(f64_bits(v), kF64, kF16));
}
inline float f16_bits_to_f32(uint16_t bits) {
  using namespace float_formats_detail;
  return to_f32(widen(bits, kF16, kF32));
}

// bf16 is the top half of an f32: narrowing adds half an ulp (ties to even) and truncates, which
// carries into the exponent exactly as narrow() rounds; widening is a shift. Both give narrow()'s
// and widen()'s bits (NaN: high payload bits, quiet bit set) at the cost of a few instructions.
inline uint16_t f32_to_bf16_bits(float v) {
  const uint32_t bits = std::bit_cast<uint32_t>(v);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
inline uint16_t f64_to_bf16_bits(double v) {
  using namespace float_formats_detail;
  return uint16_t(narrow(f64_bits(v), kF64, kBF16));
}
inline float bf16_bits_to_f32(uint16_t bits) {
  return std::bit_cast<float>(uint32_t{bits} << 16);
}

inline uint8_t f32_to_f8_bits(float v) {
  using namespace float_formats_detail;
  return uint8_t(narrow(f32_bits(v), kF32, kF8));
}
inline uint8_t f64_to_f8_bits(double v) {
  using namespace float_formats_detail;
  return uint8_t(narrow(f64_bits(v), kF64, kF8));
}
inline float f8_bits_to_f32(uint8_t bits) {
  using namespace float_formats_detail;
  return to_f32(widen(bits, kF8, kF32));
}

inline float f64_to_f32(double v) {
  using namespace float_formats_detail;
  return to_f32(narrow(f64_bits(v), kF64, kF32));
}

// Storage types for C++ users: a tensor of f16 is a span of oi::f16.
struct f16 {
  uint16_t bits = 0;
  f16() = default;
  explicit f16(float v) : bits(f32_to_f16_bits(v)) {}
  static f16 from_bits(uint16_t b) {
    f16 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return f16_bits_to_f32(bits); }
};
struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  explicit bf16(float v) : bits(f32_to_bf16_bits(v)) {}
  static bf16 from_bits(uint16_t b) {
    bf16 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return bf16_bits_to_f32(bits); }
};
struct f8 {
  uint8_t bits = 0;
  f8() = default;
  explicit f8(float v) : bits(f32_to_f8_bits(v)) {}
  static f8 from_bits(uint8_t b) {
    f8 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return f8_bits_to_f32(bits); }
};
static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2 && sizeof(f8) == 1);

}  // namespace oi
