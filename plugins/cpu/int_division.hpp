// Integer division helpers shared by div, floor_div and rem, on int64 values in the dtype's
// signedness (ops.md): truncation toward zero, INT_MIN / -1 wraps, and the div_by_zero_mask.
#pragma once

#include <cstdint>

#include "dtype_io.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::cpu {

// The divisor is non-zero.
inline int64_t int_div(int64_t a, int64_t b, const ElemIO& t) {
  if (!t.is_signed)
    return static_cast<int64_t>(static_cast<uint64_t>(a) / static_cast<uint64_t>(b));
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));  // INT_MIN / -1 wraps
  return a / b;
}

inline int64_t int_rem(int64_t a, int64_t b, const ElemIO& t) {
  if (!t.is_signed)
    return static_cast<int64_t>(static_cast<uint64_t>(a) % static_cast<uint64_t>(b));
  if (b == -1) return 0;
  return a % b;
}

inline int64_t int_floor_div(int64_t a, int64_t b, const ElemIO& t) {
  int64_t q = int_div(a, b, t);
  if (t.is_signed && b != -1 && a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

// div_by_zero_mask: the value a zero divisor gives, when the graph sets it.
struct DivMask {
  bool given = false;
  double f = 0;
  int64_t i = 0;

  static DivMask read(const oi_kernel_call& call, bool integer) {
    DivMask m;
    if (abi::find_setting(call, "div_by_zero_mask") == nullptr) return m;
    m.given = true;
    // The host checked that an integer dtype's mask is an integer that fits.
    if (integer) {
      m.i = abi::setting_int(call, "div_by_zero_mask", 0);
    } else {
      m.f = abi::setting_float(call, "div_by_zero_mask", 0.0);
    }
    return m;
  }
};

}  // namespace oi::cpu
