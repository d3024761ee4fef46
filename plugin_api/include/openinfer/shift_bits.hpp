// The range of `shl`/`shr`'s `bits` setting (ops.md: 0 <= bits < the input dtype's width), with
// the one wording the validator (a literal), the simulator and the emitters (a setting naming a
// loop index, a scalar or a size variable, checked at run time) all give.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace oi {

// Whether `bits` is a shift count the dtype of `width` bits takes.
constexpr bool shift_bits_in_range(int64_t bits, int64_t width) {
  return bits >= 0 && bits < width;
}

// "setting 'bits' of op 'shl' is 40, outside 0..31 for i32". `value` is the count's text (a
// generated program passes a printf conversion such as "%lld"); an empty `dtype` drops the
// " for ..." part.
inline std::string shift_bits_message(std::string_view op, std::string_view value, int64_t width,
                                      std::string_view dtype) {
  std::string m = "setting 'bits' of op '" + std::string(op) + "' is " + std::string(value) +
                  ", outside 0.." + std::to_string(width - 1);
  if (!dtype.empty()) m += " for " + std::string(dtype);
  return m;
}

}  // namespace oi
