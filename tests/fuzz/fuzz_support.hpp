// Shared helpers of the fuzz targets: what counts as a clean rejection, a sink that keeps reads
// from being optimised away, and the small model the DSL target validates against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "openinfer/error.hpp"
#include "openinfer/model.hpp"

namespace oi_fuzz {

// An oi::Error is a clean rejection only when it says what is wrong.
inline void check_message(const oi::Error& e) {
  if (std::string_view(e.what()).empty()) __builtin_trap();
}

inline uint64_t touch(std::span<const std::byte> bytes) {
  uint64_t sum = 0;
  for (std::byte b : bytes) sum += std::to_integer<uint64_t>(b);
  return sum;
}

// Level-2 validation needs a model: sizevars and tensors under the names the seed graphs use
// (tests/fuzz/corpus_dsl), so that the fuzzer starts from graphs that reach the deeper checks.
const oi::Model& small_model();

}  // namespace oi_fuzz
