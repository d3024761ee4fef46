// Numpy broadcasting, header-only in the plugin SDK: the validator's shape rules, both backends
// and both emitters align shapes and step through broadcast inputs here. Shapes align from the
// trailing axis; a missing leading axis counts as 1, and an axis of 1 repeats its one element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace oi::geometry {

// The shape a and b broadcast to, or nothing when an axis differs and neither is 1.
inline std::optional<std::vector<uint64_t>> broadcast_shape(std::span<const uint64_t> a,
                                                            std::span<const uint64_t> b) {
  const size_t rank = a.size() > b.size() ? a.size() : b.size();
  std::vector<uint64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const uint64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Per axis of `out`, the element stride of a row-major input of dims `in` broadcast to it
// (right-aligned): 0 where the input has no such axis or the axis is 1 (it repeats).
inline std::vector<uint64_t> broadcast_strides(std::span<const uint64_t> in,
                                               std::span<const uint64_t> out) {
  std::vector<uint64_t> s(out.size(), 0);
  uint64_t stride = 1;
  for (size_t k = 0; k < in.size() && k < out.size(); ++k) {
    const size_t i = in.size() - 1 - k, o = out.size() - 1 - k;
    if (in[i] != 1) s[o] = stride;
    stride *= in[i];
  }
  return s;
}

}  // namespace oi::geometry
