// cache.reset of a window of table entries (dsl.md "Blocks and nodes"): which accesses are
// windows. The host program empties exactly the entries (or @auto_dim matrices) the same
// access reads, with a read's checks (glsl_host.cpp reset_window), as the simulator's
// Memory::reset_table.
#pragma once

#include <string>
#include <vector>

#include "openinfer/reset_window.hpp"

namespace oi::glsl {

// Whether the index terms (plan_input's parse_ref: an empty slot is "..") are a window: among
// the first `table_rank`, a slice with a start or an end, or a whole axis ("..") before a single
// index. Otherwise the leading single indices choose what is reset (`K`, `K[l]`, `K[l, t]`).
inline bool resets_a_window(const std::vector<std::string>& terms, size_t table_rank) {
  std::vector<geometry::ResetSlot> slots;
  for (size_t k = 0; k < terms.size() && k < table_rank; ++k)
    slots.push_back(terms[k].find("..") == std::string::npos ? geometry::ResetSlot::Index
                    : terms[k] != ".."                       ? geometry::ResetSlot::Bounded
                                                             : geometry::ResetSlot::WholeAxis);
  return geometry::reset_is_window(slots);
}

}  // namespace oi::glsl
