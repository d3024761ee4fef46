// Printing helpers shared by `dump` (everything) and `inspect` (long lists shortened).
#pragma once

#include <cstdint>
#include <string>

#include "openinfer/model.hpp"

namespace oi::oinf_text {

// "[2, 3]"; "[]" for rank 0.
std::string dims_text(const Shape& dims);

// "{ v, v, ... }" in row-major order; with `shorten`, more than 10 values print as the first
// five, "...", and the last five. An empty tensor prints "{ }".
std::string values_text(const Tensor& tensor, bool shorten);

// "0b..." with bit 0 first; with `shorten`, more than 64 bits print the first and last 32.
std::string bits_text(const MetaValue& bitset, bool shorten);

}  // namespace oi::oinf_text
