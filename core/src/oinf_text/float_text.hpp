// Float elements in the text form: shortest round-trip decimals and their parsing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "openinfer/dtype.hpp"

namespace oi::oinf_text {

// The text of one float element given its raw bits (dtype is f8, bf16, f16, f32 or f64).
std::string format_float(DType dtype, uint64_t raw);

// The raw bits of a float element written as a decimal, `inf`, `-inf`, `nan` or `nan(0xHEX)`.
// Throws oi::Error (Input) naming the problem.
uint64_t parse_float(DType dtype, std::string_view token);

}  // namespace oi::oinf_text
