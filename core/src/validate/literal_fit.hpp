// Internal to the validator: whether a literal fits a dtype (@init values, fill and clamp
// settings), with the reason when it does not.
#pragma once

#include <string>

#include "openinfer/dtype.hpp"
#include "openinfer/graph.hpp"

namespace oi::validation {

// Empty when `v` fits `t`; otherwise why not ("300 is out of range for u8 [0, 255]").
// Settings (`clamp(x, max=6.0)`) accept a whole number written as a float for integer dtypes
// and +-inf as "unbounded"; @init takes the literal kind of its dtype strictly.
enum class FitMode { Init, Setting };
std::string literal_fit_problem(const Value& v, DType t, FitMode mode);

}  // namespace oi::validation
