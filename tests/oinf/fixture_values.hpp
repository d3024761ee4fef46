// The element values make_fixtures.py writes (values_of there), rebuilt in C++.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "openinfer/tensor.hpp"

namespace oinf_test {

inline bool is_float_dtype(oi::DType d) {
  return oi::is_float(d);
}

// Element i of a fixture tensor, as an integer (two's complement for u64) or as a double.
inline int64_t int_value(oi::DType d, uint64_t i) {
  using oi::DType;
  if (d == DType::t2) return static_cast<int64_t>(i % 3) - 1;
  if (d == DType::t1) return i % 2 ? 1 : -1;
  const int64_t lo = oi::int_min(d);
  const uint64_t hi = oi::int_max(d);
  if (i == 0) return lo;
  if (i == 1) return static_cast<int64_t>(hi);
  // lo + (i * 37) % (hi - lo + 1); for 64-bit types the modulus exceeds i * 37.
  const uint64_t span = hi - static_cast<uint64_t>(lo) + 1;  // 0 for the 64-bit types
  const uint64_t step = span == 0 ? i * 37 : (i * 37) % span;
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + step);
}

inline double float_value(uint64_t i) {
  return 0.5 * (static_cast<double>(i) - 7.0);
}

inline oi::Tensor fixture_tensor(oi::DType d, oi::Shape shape) {
  oi::Tensor t(d, std::move(shape));
  for (uint64_t i = 0; i < t.numel(); ++i) {
    if (is_float_dtype(d))
      t.set_float(i, float_value(i));
    else
      t.set_int(i, int_value(d, i));
  }
  return t;
}

// The scalar metadata value "s_<dtype>" (values_of(d, 2)[1] in the script).
inline oi::Tensor fixture_scalar(oi::DType d) {
  oi::Tensor t(d, oi::Shape{});
  if (is_float_dtype(d))
    t.set_float(0, float_value(1));
  else
    t.set_int(0, int_value(d, 1));
  return t;
}

template <class T>
oi::Tensor ints(oi::DType d, oi::Shape shape, const std::vector<T>& values) {
  oi::Tensor t(d, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.set_int(i, static_cast<int64_t>(values[i]));
  return t;
}

}  // namespace oinf_test
