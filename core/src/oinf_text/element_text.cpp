// One element of any dtype in the text form: integers in decimal, bool as true/false,
// t1/t2 as -1/0/1, bitset bytes as 0..255, floats via float_text.
#include <charconv>
#include <string>

#include "float_text.hpp"
#include "openinfer/error.hpp"
#include "openinfer/oinf_text.hpp"

namespace oi {
namespace {

uint64_t width_mask(DType dtype) {
  const uint32_t bits = dtype_bits(dtype);
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

int64_t sign_extend(uint64_t raw, uint32_t bits) {
  if (bits >= 64) return static_cast<int64_t>(raw);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t value = raw & ((uint64_t{1} << bits) - 1);
  return (value & sign) ? static_cast<int64_t>(value | ~((uint64_t{1} << bits) - 1))
                        : static_cast<int64_t>(value);
}

std::string range_text(DType dtype) {
  if (dtype == DType::t1) return "-1 or 1";
  return std::to_string(int_min(dtype)) + ".." + std::to_string(int_max(dtype));
}

[[noreturn]] void throw_out_of_range(DType dtype, std::string_view token) {
  throw input_error("value " + std::string(token) + " does not fit " +
                    std::string(dtype_name(dtype)) + " (" + range_text(dtype) + ")");
}

[[noreturn]] void throw_not_integer(DType dtype, std::string_view token) {
  throw input_error("expected an integer for " + std::string(dtype_name(dtype)) + ", got '" +
                    std::string(token) + "'");
}

// Reads an optionally signed decimal integer and checks it against the dtype's range.
int64_t parse_signed(DType dtype, std::string_view token) {
  std::string_view digits = token;
  const bool negative = digits.starts_with('-');
  if (negative || digits.starts_with('+')) digits.remove_prefix(1);
  uint64_t magnitude = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (digits.empty() || r.ptr != digits.data() + digits.size() ||
      (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
    throw_not_integer(dtype, token);
  if (r.ec == std::errc::result_out_of_range) throw_out_of_range(dtype, token);
  if (negative) {
    const uint64_t limit = uint64_t{0} - static_cast<uint64_t>(int_min(dtype));  // |min|
    if (magnitude > limit) throw_out_of_range(dtype, token);
    return static_cast<int64_t>(uint64_t{0} - magnitude);
  }
  if (magnitude > static_cast<uint64_t>(int_max(dtype))) throw_out_of_range(dtype, token);
  return static_cast<int64_t>(magnitude);
}

uint64_t parse_unsigned(DType dtype, std::string_view token) {
  std::string_view digits = token;
  const bool negative = digits.starts_with('-');
  if (negative || digits.starts_with('+')) digits.remove_prefix(1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    throw_not_integer(dtype, token);
  if (negative) {
    if (digits.find_first_not_of('0') == std::string_view::npos) return 0;  // -0
    throw_out_of_range(dtype, token);
  }
  uint64_t value = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (r.ec != std::errc() || value > int_max(dtype)) throw_out_of_range(dtype, token);
  return value;
}

}  // namespace

std::string format_element(DType dtype, uint64_t raw) {
  switch (dtype_class(dtype)) {
    case DTypeClass::Float:
      return oinf_text::format_float(dtype, raw);
    case DTypeClass::Signed:
      return std::to_string(sign_extend(raw, dtype_bits(dtype)));
    case DTypeClass::Unsigned:
    case DTypeClass::Bitset:
      return std::to_string(raw & width_mask(dtype));
    case DTypeClass::Bool:
      if (raw == 0) return "false";
      if (raw == 1) return "true";
      return std::to_string(raw);  // not a valid bool: shown as is, `pack` rejects it
    case DTypeClass::Ternary:
      if (dtype == DType::t1) return (raw & 1) ? "1" : "-1";
      return std::to_string(sign_extend(raw, 2));
  }
  return std::to_string(raw);
}

uint64_t parse_element(DType dtype, std::string_view token) {
  switch (dtype_class(dtype)) {
    case DTypeClass::Float:
      return oinf_text::parse_float(dtype, token);
    case DTypeClass::Signed:
      return static_cast<uint64_t>(parse_signed(dtype, token)) & width_mask(dtype);
    case DTypeClass::Unsigned:
    case DTypeClass::Bitset:
      return parse_unsigned(dtype, token);
    case DTypeClass::Bool:
      if (token == "true") return 1;
      if (token == "false") return 0;
      throw input_error("expected true or false for bool, got '" + std::string(token) + "'");
    case DTypeClass::Ternary: {
      const int64_t v = parse_signed(dtype, token);
      if (dtype == DType::t1) {
        if (v == 0) throw_out_of_range(dtype, token);
        return v > 0 ? 1 : 0;
      }
      return static_cast<uint64_t>(v) & 3;
    }
  }
  throw input_error("unknown dtype");
}

}  // namespace oi
