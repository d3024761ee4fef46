// Narrow float formats: IEEE binary16 (f16), bfloat16 (bf16) and OCP E5M2 (f8).
// Every narrowing conversion rounds to nearest, ties to even, overflows to +-inf,
// keeps NaN a NaN (payload bits kept where they fit, else the quiet bit set) and
// produces subnormals where the target has them. Widening is exact.
#pragma once

#include <cstdint>

namespace oi {

uint16_t f32_to_f16_bits(float v);
uint16_t f64_to_f16_bits(double v);  // one rounding straight from f64
float f16_bits_to_f32(uint16_t bits);

uint16_t f32_to_bf16_bits(float v);
uint16_t f64_to_bf16_bits(double v);
float bf16_bits_to_f32(uint16_t bits);

uint8_t f32_to_f8_bits(float v);
uint8_t f64_to_f8_bits(double v);
float f8_bits_to_f32(uint8_t bits);

float f64_to_f32(double v);  // IEEE rounding (what a cast does), named for symmetry

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
