// The op registry: the math family adds its expressions by op name (ops.hpp).
#include "ops.hpp"

namespace oi::glsl {

const OpRegistry& op_registry() {
  static const OpRegistry r = [] {
    OpRegistry t;
    register_math_ops(t);
    return t;
  }();
  return r;
}

std::string supported_ops() {
  std::string s =
      "add, sub, mul, div, neg, abs, min, max, clamp, relu, fill, cast, eq, ne, lt, le, gt, ge, "
      "and, or, xor, not, is_nan, is_inf, is_neg";
  for (const auto& [name, fn] : op_registry().math) s += ", " + name;
  return s;
}

}  // namespace oi::glsl
