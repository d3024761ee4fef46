// Whether a literal fits a dtype.
#include "literal_fit.hpp"

#include <cmath>

namespace oi::validation {
namespace {

std::string range_text(DType t) {
  return "[" + std::to_string(int_min(t)) + ", " + std::to_string(int_max(t)) + "]";
}

bool int_in_range(int64_t v, DType t) {
  if (v < int_min(t)) return false;
  return v < 0 || static_cast<uint64_t>(v) <= int_max(t);
}

}  // namespace

std::string literal_fit_problem(const Value& v, DType t, FitMode mode) {
  const std::string type(dtype_name(t));
  switch (v.kind) {
    case Value::Kind::Int:
      if (v.above_int64) {
        if (t == DType::u64 || is_float(t)) return "";
        return v.int_text() + " is out of range for " + type + " " + range_text(t);
      }
      if (t == DType::boolean)
        return v.int_value == 0 || v.int_value == 1 ? "" : "bool takes true, false, 0 or 1";
      if (is_float(t)) return "";
      if (!int_in_range(v.int_value, t))
        return std::to_string(v.int_value) + " is out of range for " + type + " " + range_text(t);
      return "";
    case Value::Kind::Float:
      if (is_float(t)) return "";
      if (mode == FitMode::Init) return "a float literal does not fit " + type;
      if (std::isinf(v.float_value)) return "";
      if (std::isnan(v.float_value) || std::isinf(v.float_value) ||
          v.float_value != std::trunc(v.float_value))
        return "a non-integral number does not fit " + type;
      // A whole number written as a float (6.0) fits when it is in range.
      if (v.float_value < -9.3e18 || v.float_value > 9.3e18 ||
          !int_in_range(static_cast<int64_t>(v.float_value), t))
        return "value out of range for " + type + " " + range_text(t);
      if (t == DType::boolean && v.float_value != 0.0 && v.float_value != 1.0)
        return "bool takes true, false, 0 or 1";
      return "";
    case Value::Kind::Bool:
      if (t == DType::boolean) return "";
      return "a bool does not fit " + type;
    default:
      return "expected a number for " + type;
  }
}

}  // namespace oi::validation
