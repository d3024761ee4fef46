// cache.reset of a window of table entries (dsl.md "Blocks and nodes"): which accesses are
// windows. The host program empties exactly the entries (or @auto_dim matrices) the same
// access reads, with a read's checks (glsl_host.cpp reset_window), as the simulator's
// Memory::reset_table.
#pragma once

#include <string>
#include <vector>

namespace oi::glsl {

// Whether the index terms (plan_input's parse_ref: an empty slot is "..") are a window: among
// the first `table_rank`, a slice with a start or an end, or a whole axis ("..") before a single
// index. Otherwise the leading single indices choose what is reset (`K`, `K[l]`, `K[l, t]`).
inline bool reset_is_window(const std::vector<std::string>& terms, size_t table_rank) {
  bool whole_axis = false;
  for (size_t k = 0; k < terms.size() && k < table_rank; ++k) {
    if (terms[k].find("..") == std::string::npos) {
      if (whole_axis) return true;
    } else if (terms[k] != "..") {
      return true;
    } else {
      whole_axis = true;
    }
  }
  return false;
}

}  // namespace oi::glsl
