// Tensor element access for every dtype: raw storage bits (packed types LSB-first, wider
// types little-endian), integer and float views of them.
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "openinfer/float_formats.hpp"
#include "openinfer/tensor.hpp"

namespace oi {
namespace {

uint64_t width_mask(uint32_t bits) {
  return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

std::string name_of(DType t) {
  return std::string(dtype_name(t));
}

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[v & 0xF]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}

// Raw patterns that the width allows but the dtype does not: bool 2..255, t2 0b10 (-2).
bool valid_raw(DType t, uint64_t raw) {
  if (t == DType::boolean) return raw <= 1;
  if (t == DType::t2) return raw != 2;
  return true;
}

int64_t sign_extend(uint64_t raw, uint32_t bits) {
  if (bits == 64) return static_cast<int64_t>(raw);
  const uint32_t unused = 64 - bits;
  return static_cast<int64_t>(raw << unused) >> unused;
}

}  // namespace

void Tensor::check_index(uint64_t index) const {
  if (index >= numel_)
    throw input_error("element index " + std::to_string(index) + " is out of range for a " +
                      name_of(dtype_) + " tensor of shape " + shape_to_string(shape_) + " (" +
                      std::to_string(numel_) + " elements)");
}

uint64_t Tensor::get_raw(uint64_t index) const {
  check_index(index);
  const uint32_t bits = dtype_bits(dtype_);
  if (bits < 8) {
    const uint64_t per_byte = 8 / bits;
    const auto byte = static_cast<unsigned>(data_[index / per_byte]);
    return (byte >> ((index % per_byte) * bits)) & width_mask(bits);
  }
  const uint32_t size = bits / 8;
  const std::byte* p = data_ + index * size;
  uint64_t raw = 0;
  for (uint32_t i = 0; i < size; ++i) raw |= static_cast<uint64_t>(p[i]) << (8 * i);
  return raw;
}

void Tensor::set_raw(uint64_t index, uint64_t raw) {
  check_index(index);
  const uint32_t bits = dtype_bits(dtype_);
  if ((raw & ~width_mask(bits)) != 0 || !valid_raw(dtype_, raw))
    throw input_error("raw value " + hex(raw) + " is not a valid " + name_of(dtype_) + " element");
  std::byte* base = mutable_bytes().data();
  if (bits < 8) {
    const uint64_t per_byte = 8 / bits;
    const auto shift = static_cast<unsigned>((index % per_byte) * bits);
    const auto mask = static_cast<unsigned>(width_mask(bits) << shift);
    std::byte& b = base[index / per_byte];
    b = static_cast<std::byte>((static_cast<unsigned>(b) & ~mask) | (unsigned(raw) << shift));
    return;
  }
  const uint32_t size = bits / 8;
  std::byte* p = base + index * size;
  for (uint32_t i = 0; i < size; ++i) p[i] = static_cast<std::byte>((raw >> (8 * i)) & 0xFF);
}

int64_t Tensor::get_int(uint64_t index) const {
  if (is_float(dtype_))
    throw input_error("get_int on a " + name_of(dtype_) + " tensor: use get_float");
  const uint64_t raw = get_raw(index);
  if (!valid_raw(dtype_, raw))
    throw input_error("element " + std::to_string(index) + " holds " + hex(raw) +
                      ", which is not a valid " + name_of(dtype_) + " value");
  switch (dtype_class(dtype_)) {
    case DTypeClass::Signed:
      return sign_extend(raw, dtype_bits(dtype_));
    case DTypeClass::Ternary:
      return dtype_ == DType::t1 ? (raw ? 1 : -1) : sign_extend(raw, 2);
    default:  // unsigned, bool, bitset
      return static_cast<int64_t>(raw);
  }
}

void Tensor::set_int(uint64_t index, int64_t v) {
  const auto bad_value = [&] {
    return input_error(std::to_string(v) + " is not a valid " + name_of(dtype_) + " value");
  };
  switch (dtype_class(dtype_)) {
    case DTypeClass::Float:
      throw input_error("set_int on a " + name_of(dtype_) + " tensor: use set_float");
    case DTypeClass::Bool:
      if (v != 0 && v != 1) throw bad_value();
      return set_raw(index, static_cast<uint64_t>(v));
    case DTypeClass::Ternary:
      if (v < -1 || v > 1 || (dtype_ == DType::t1 && v == 0)) throw bad_value();
      if (dtype_ == DType::t1) return set_raw(index, v == 1 ? 1 : 0);
      return set_raw(index, static_cast<uint64_t>(v) & 3);
    default:  // integers and bitset wrap to the width
      return set_raw(index, static_cast<uint64_t>(v) & width_mask(dtype_bits(dtype_)));
  }
}

double Tensor::get_float(uint64_t index) const {
  switch (dtype_) {
    case DType::f64:
      return std::bit_cast<double>(get_raw(index));
    case DType::f32:
      return std::bit_cast<float>(static_cast<uint32_t>(get_raw(index)));
    case DType::f16:
      return f16_bits_to_f32(static_cast<uint16_t>(get_raw(index)));
    case DType::bf16:
      return bf16_bits_to_f32(static_cast<uint16_t>(get_raw(index)));
    case DType::f8:
      return f8_bits_to_f32(static_cast<uint8_t>(get_raw(index)));
    default:
      break;
  }
  if (dtype_class(dtype_) == DTypeClass::Unsigned || dtype_ == DType::bitset)
    return static_cast<double>(get_raw(index));
  return static_cast<double>(get_int(index));
}

void Tensor::set_float(uint64_t index, double v) {
  switch (dtype_) {
    case DType::f64:
      return set_raw(index, std::bit_cast<uint64_t>(v));
    case DType::f32:
      return set_raw(index, std::bit_cast<uint32_t>(f64_to_f32(v)));
    case DType::f16:
      return set_raw(index, f64_to_f16_bits(v));
    case DType::bf16:
      return set_raw(index, f64_to_bf16_bits(v));
    case DType::f8:
      return set_raw(index, f64_to_f8_bits(v));
    default:
      break;
  }
  // Integer-like: truncate, then require the value to lie in [lo, hi_exclusive).
  const double t = std::trunc(v);
  const uint32_t bits = dtype_bits(dtype_);
  double lo = 0, hi_exclusive = 2;  // bool
  switch (dtype_class(dtype_)) {
    case DTypeClass::Signed:
      lo = -std::ldexp(1.0, int(bits) - 1);
      hi_exclusive = std::ldexp(1.0, int(bits) - 1);
      break;
    case DTypeClass::Unsigned:
    case DTypeClass::Bitset:
      hi_exclusive = std::ldexp(1.0, int(bits));
      break;
    case DTypeClass::Ternary:
      lo = -1;
      break;
    default:
      break;
  }
  if (!(t >= lo && t < hi_exclusive))  // also rejects NaN
    throw input_error(std::to_string(v) + " does not fit in " + name_of(dtype_));
  check_index(index);
  if (t < 0) return set_int(index, static_cast<int64_t>(t));
  const auto u = static_cast<uint64_t>(t);
  if (dtype_ == DType::u64) return set_raw(index, u);
  return set_int(index, static_cast<int64_t>(u));
}

}  // namespace oi
