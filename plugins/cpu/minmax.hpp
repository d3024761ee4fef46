// min/max with the rules of ops.md, shared by min, max, clamp, max_axis and min_axis: a NaN
// operand gives NaN, and -0.0 counts as less than +0.0.
#pragma once

#include <cmath>
#include <cstdint>

#include "dtype_io.hpp"
#include "generic_elementwise.hpp"

namespace oi::cpu {

template <class F>
inline F float_min(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class F>
inline F float_max(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline int64_t int_min(int64_t a, int64_t b, const ElemIO& t) {
  return int_less(b, a, t) ? b : a;
}
inline int64_t int_max(int64_t a, int64_t b, const ElemIO& t) {
  return int_less(a, b, t) ? b : a;
}

}  // namespace oi::cpu
