// Settings naming constant scalars: their bytes and the value the simulator's op sees.
#include "constant_setting.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "c_common.hpp"
#include "openinfer/float_formats.hpp"

namespace oi::c_emitter {

namespace {

bool is_signed_int(const std::string& d) {
  return d == "i8" || d == "i16" || d == "i32" || d == "i64" || d == "i4" || d == "i2" || d == "i1";
}

std::string le_bytes(uint64_t v, size_t n) {
  std::string out(n, '\0');
  for (size_t k = 0; k < n; ++k) out[k] = static_cast<char>((v >> (8 * k)) & 0xffu);
  return out;
}

}  // namespace

size_t scalar_bytes(const std::string& dtype) {
  return packed_bits(dtype) ? 1 : dtype_size(dtype);
}

std::optional<std::string> scalar_init_bytes(const json::value& init, const std::string& dtype) {
  const bool flt =
      dtype == "f32" || dtype == "f64" || dtype == "f16" || dtype == "bf16" || dtype == "f8";
  if (flt) {
    double d = 0;
    if (init.is_number())
      d = init.to_number<double>();
    else if (init.is_bool())
      d = init.as_bool() ? 1.0 : 0.0;
    else if (init.is_string() && init.as_string() == "inf")
      d = HUGE_VAL;
    else if (init.is_string() && init.as_string() == "-inf")
      d = -HUGE_VAL;
    else if (init.is_string() && init.as_string() == "nan")
      d = std::nan("");
    else
      return std::nullopt;
    if (dtype == "f64")
      return le_bytes(
          [&] {
            uint64_t b;
            std::memcpy(&b, &d, 8);
            return b;
          }(),
          8);
    if (dtype == "f32") {
      const float f = static_cast<float>(d);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return le_bytes(b, 4);
    }
    if (dtype == "f16") return le_bytes(f64_to_f16_bits(d), 2);
    if (dtype == "bf16") return le_bytes(f64_to_bf16_bits(d), 2);
    return le_bytes(f64_to_f8_bits(d), 1);
  }
  int64_t i = 0;
  if (init.is_int64())
    i = init.as_int64();
  else if (init.is_uint64())
    i = static_cast<int64_t>(init.as_uint64());
  else if (init.is_bool())
    i = init.as_bool() ? 1 : 0;
  else
    return std::nullopt;
  if (dtype == "bool") return le_bytes(i != 0, 1);
  if (const unsigned bits = packed_bits(dtype))
    return le_bytes(static_cast<uint64_t>(i) & ((1u << bits) - 1u), 1);
  if (!c_type(dtype)) return std::nullopt;
  return le_bytes(static_cast<uint64_t>(i), dtype_size(dtype));
}

json::value scalar_setting(const std::string& bytes, const std::string& dtype) {
  uint64_t raw = 0;
  for (size_t k = bytes.size(); k-- > 0;) raw = raw << 8 | static_cast<unsigned char>(bytes[k]);
  if (dtype == "f64") {
    double d;
    std::memcpy(&d, &raw, 8);
    return d;
  }
  if (dtype == "f32") {
    const uint32_t b = static_cast<uint32_t>(raw);
    float f;
    std::memcpy(&f, &b, 4);
    return static_cast<double>(f);
  }
  if (dtype == "f16") return static_cast<double>(f16_bits_to_f32(static_cast<uint16_t>(raw)));
  if (dtype == "bf16") return static_cast<double>(bf16_bits_to_f32(static_cast<uint16_t>(raw)));
  if (dtype == "f8") return static_cast<double>(f8_bits_to_f32(static_cast<uint8_t>(raw)));
  if (dtype == "bool") return static_cast<int64_t>(raw & 1u ? 1 : 0);
  const unsigned bits =
      packed_bits(dtype) ? packed_bits(dtype) : 8u * static_cast<unsigned>(bytes.size());
  if (bits < 64) raw &= (uint64_t{1} << bits) - 1u;
  int64_t v = static_cast<int64_t>(raw);
  if (bits < 64 && is_signed_int(dtype) && (raw >> (bits - 1)) & 1u)
    v = static_cast<int64_t>(raw | ~((uint64_t{1} << bits) - 1u));
  return v;
}

}  // namespace oi::c_emitter
