#include "float_text.hpp"

#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/float_formats.hpp"
#include "openinfer/oinf_text.hpp"

namespace oi {
namespace oinf_text {
namespace {

struct FloatLayout {
  int exp_bits;
  int man_bits;
  int total_bits() const { return 1 + exp_bits + man_bits; }
  uint64_t man_mask() const { return (uint64_t{1} << man_bits) - 1; }
  uint64_t exp_all_ones() const { return (uint64_t{1} << exp_bits) - 1; }
  uint64_t sign_bit() const { return uint64_t{1} << (exp_bits + man_bits); }
  bool is_nan(uint64_t raw) const {
    return ((raw >> man_bits) & exp_all_ones()) == exp_all_ones() && (raw & man_mask()) != 0;
  }
};

FloatLayout layout_of(DType dtype) {
  switch (dtype) {
    case DType::f8:
      return {5, 2};
    case DType::bf16:
      return {8, 7};
    case DType::f16:
      return {5, 10};
    case DType::f32:
      return {8, 23};
    case DType::f64:
      return {11, 52};
    default:
      throw input_error("'" + std::string(dtype_name(dtype)) + "' is not a float dtype");
  }
}

double to_double(DType dtype, uint64_t raw) {
  switch (dtype) {
    case DType::f8:
      return f8_bits_to_f32(static_cast<uint8_t>(raw));
    case DType::bf16:
      return bf16_bits_to_f32(static_cast<uint16_t>(raw));
    case DType::f16:
      return f16_bits_to_f32(static_cast<uint16_t>(raw));
    case DType::f32:
      return std::bit_cast<float>(static_cast<uint32_t>(raw));
    default:
      return std::bit_cast<double>(raw);
  }
}

// Reads a decimal the way `pack` does: f32 with one rounding (strtof), f64 exactly rounded,
// the narrow formats through f64 with the library's round-to-nearest-even conversions.
uint64_t decimal_to_bits(DType dtype, const std::string& text) {
  if (dtype == DType::f32) return std::bit_cast<uint32_t>(std::strtof(text.c_str(), nullptr));
  const double v = std::strtod(text.c_str(), nullptr);
  switch (dtype) {
    case DType::f8:
      return f64_to_f8_bits(v);
    case DType::bf16:
      return f64_to_bf16_bits(v);
    case DType::f16:
      return f64_to_f16_bits(v);
    default:
      return std::bit_cast<uint64_t>(v);
  }
}

// A positive decimal d1.d2d3... x 10^exponent, digits without trailing zeros.
struct Decimal {
  std::string digits;
  int exponent = 0;

  std::string scientific() const {
    std::string s(1, digits[0]);
    if (digits.size() > 1) s += "." + digits.substr(1);
    return s + "e" + std::to_string(exponent);
  }
};

void strip_trailing_zeros(Decimal& d) {
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
}

// Parses to_chars' scientific output ("1.25e-07", "3e+00").
Decimal from_scientific(std::string_view s) {
  Decimal d;
  const size_t e = s.find('e');
  for (char c : s.substr(0, e))
    if (c != '.') d.digits += c;
  std::string_view exp = s.substr(e + 1);
  if (!exp.empty() && exp[0] == '+') exp.remove_prefix(1);
  std::from_chars(exp.data(), exp.data() + exp.size(), d.exponent);
  strip_trailing_zeros(d);
  return d;
}

template <class T>
Decimal shortest_of(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return from_scientific(std::string_view(buf, r.ptr - buf));
}

// The next (step = +1) or previous (step = -1) decimal with the same number of digits.
// Returns false when the result would be zero.
bool step_last_digit(Decimal& d, int step) {
  std::string& s = d.digits;
  if (step > 0) {
    int i = static_cast<int>(s.size()) - 1;
    while (i >= 0 && s[i] == '9') s[i--] = '0';
    if (i < 0) {
      s.insert(s.begin(), '1');
      s.pop_back();
      ++d.exponent;
    } else {
      ++s[i];
    }
  } else {
    int i = static_cast<int>(s.size()) - 1;
    while (i >= 0 && s[i] == '0') s[i--] = '9';
    if (i < 0) return false;
    --s[i];
    if (s[0] == '0') {
      if (s.size() == 1) return false;
      s.erase(s.begin());
      s.push_back('9');
      --d.exponent;
    }
  }
  strip_trailing_zeros(d);
  return true;
}

// Shortest decimal that reads back to `abs_raw` (a positive finite value) in a narrow format:
// for each length, the correctly rounded decimal, or else its neighbour on the value's other
// side (needed where the rounding interval is lopsided, just above a power of two).
Decimal shortest_narrow(DType dtype, uint64_t abs_raw) {
  const double v = to_double(dtype, abs_raw);
  for (int precision = 1; precision <= 17; ++precision) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, precision - 1);
    Decimal d = from_scientific(std::string_view(buf, r.ptr - buf));
    if (decimal_to_bits(dtype, d.scientific()) == abs_raw) return d;
    const double dv = std::strtod(d.scientific().c_str(), nullptr);
    d.digits.resize(precision, '0');  // step the last of `precision` digits, not of fewer
    if (step_last_digit(d, dv < v ? +1 : -1) && decimal_to_bits(dtype, d.scientific()) == abs_raw)
      return d;
  }
  return shortest_of(v);  // 17 digits always round-trip a double; unreachable in practice
}

// Python-repr layout: positional for exponents -4..15, scientific otherwise.
std::string layout_decimal(const Decimal& d) {
  const std::string& g = d.digits;
  const int n = static_cast<int>(g.size());
  if (d.exponent >= -4 && d.exponent < 16) {
    if (d.exponent < 0) return "0." + std::string(-d.exponent - 1, '0') + g;
    const int int_digits = d.exponent + 1;
    if (n <= int_digits) return g + std::string(int_digits - n, '0') + ".0";
    return g.substr(0, int_digits) + "." + g.substr(int_digits);
  }
  std::string s(1, g[0]);
  if (n > 1) s += "." + g.substr(1);
  const int e = d.exponent < 0 ? -d.exponent : d.exponent;
  s += d.exponent < 0 ? "e-" : "e+";
  if (e < 10) s += '0';
  return s + std::to_string(e);
}

std::string hex_bits(uint64_t raw, int bits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (int shift = bits - 4; shift >= 0; shift -= 4) s += kHex[(raw >> shift) & 0xF];
  return s;
}

// [+-]?(digits[.digits*] | .digits)([eE][+-]?digits)?
bool is_decimal_literal(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t mantissa_digits = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa_digits += digits();
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace

std::string format_float(DType dtype, uint64_t raw) {
  const FloatLayout f = layout_of(dtype);
  if (f.is_nan(raw)) {
    if (raw == canonical_nan_bits(dtype)) return "nan";
    return "nan(0x" + hex_bits(raw, f.total_bits()) + ")";
  }
  const bool negative = (raw & f.sign_bit()) != 0;
  const uint64_t abs_raw = raw & ~f.sign_bit();
  const std::string sign = negative ? "-" : "";
  if (abs_raw == f.exp_all_ones() << f.man_bits) return sign + "inf";
  if (abs_raw == 0) return sign + "0.0";
  Decimal d;
  if (dtype == DType::f64)
    d = shortest_of(std::bit_cast<double>(abs_raw));
  else if (dtype == DType::f32)
    d = shortest_of(std::bit_cast<float>(static_cast<uint32_t>(abs_raw)));
  else
    d = shortest_narrow(dtype, abs_raw);
  return sign + layout_decimal(d);
}

uint64_t parse_float(DType dtype, std::string_view token) {
  const FloatLayout f = layout_of(dtype);
  const std::string name(dtype_name(dtype));
  const uint64_t inf = f.exp_all_ones() << f.man_bits;
  if (token == "inf" || token == "+inf") return inf;
  if (token == "-inf") return inf | f.sign_bit();
  if (token == "nan") return canonical_nan_bits(dtype);
  if (token.starts_with("nan(")) {
    std::string_view hex = token.substr(4);
    const bool closed = hex.ends_with(")");
    if (closed) hex.remove_suffix(1);
    uint64_t raw = 0;
    const bool has_prefix = hex.starts_with("0x") || hex.starts_with("0X");
    if (has_prefix) hex.remove_prefix(2);
    auto r = std::from_chars(hex.data(), hex.data() + hex.size(), raw, 16);
    if (!closed || !has_prefix || hex.empty() || r.ec != std::errc() ||
        r.ptr != hex.data() + hex.size())
      throw input_error("malformed NaN '" + std::string(token) + "': write nan(0xHEX)");
    if (hex.size() * 4 > static_cast<size_t>(f.total_bits()) + 3 ||
        (f.total_bits() < 64 && raw >> f.total_bits() != 0))
      throw input_error("NaN bits '" + std::string(token) + "' do not fit " + name);
    if (!f.is_nan(raw))
      throw input_error("'" + std::string(token) + "' is not a NaN bit pattern of " + name);
    return raw;
  }
  if (!is_decimal_literal(token))
    throw input_error("expected a number for " + name + ", got '" + std::string(token) + "'");
  return decimal_to_bits(dtype, std::string(token));
}

}  // namespace oinf_text

uint64_t canonical_nan_bits(DType dtype) {
  const auto f = oinf_text::layout_of(dtype);
  return (f.exp_all_ones() << f.man_bits) | (uint64_t{1} << (f.man_bits - 1));
}

}  // namespace oi
