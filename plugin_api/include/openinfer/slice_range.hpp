// ONNX Slice ranges, header-only in the plugin SDK: the validator's shape rule, both backends and
// both emitters normalise `starts`/`ends`/`axes`/`steps` here, so they agree on every corner.
// Per sliced axis (`axes`, default 0, 1, ...) a start, end and step (default 1, never 0);
// negative starts/ends count from the end and are then clamped to [0, dim] (step > 0) or
// [-1, dim - 1] (step < 0). The output dim is the number of indices visited. The per-axis
// arithmetic is openinfer/geometry.h's (C11 and C++), which C kernels and generated C share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "openinfer/geometry.h"

namespace oi::geometry {

// One axis: the first index read, the step between reads and how many are read.
struct SliceAxis {
  int64_t start = 0;
  int64_t step = 1;
  uint64_t count = 0;
};

// The range of one axis of `dim` indices; `step` must not be 0. An empty result starts at the
// clamped start (0 on an empty axis). The arithmetic is openinfer/geometry.h's, shared with C.
constexpr SliceAxis slice_axis(int64_t start, int64_t end, int64_t step, uint64_t dim) {
  const oi_slice_axis_range r = oi_slice_axis(start, end, step, dim);
  return {r.start, r.step, r.count};
}

// What is wrong with a slice's settings, for the caller to word in its own voice.
enum class SliceError {
  none,
  lengths,        // ends/axes/steps do not have one entry per entry of starts
  too_many,       // no axes and more entries than the input has axes
  axis_range,     // axes[entry] outside [-rank, rank)
  axis_repeated,  // axes[entry] names an axis already sliced
  zero_step,      // steps[entry] is 0
};

// Every axis of the input: untouched axes read whole (start 0, step 1, count dim).
struct SliceRanges {
  std::vector<SliceAxis> axes;
  SliceError error = SliceError::none;
  size_t entry = 0;  // the settings entry the error is about
  int64_t axis = 0;  // the axis as written in `axes` (axis_range, axis_repeated)

  bool ok() const { return error == SliceError::none; }
  std::vector<uint64_t> counts() const {
    std::vector<uint64_t> c;
    for (const SliceAxis& a : axes) c.push_back(a.count);
    return c;
  }
};

// The settings as given: `axes` and `steps` may be absent (has_axes/has_steps false).
struct SliceSettings {
  std::span<const int64_t> starts, ends, axes, steps;
  bool has_axes = false, has_steps = false;
};

// Normalises a whole slice of an input of dims `dims`; checks in the order listed in SliceError.
inline SliceRanges slice_ranges(std::span<const uint64_t> dims, const SliceSettings& s) {
  SliceRanges r;
  const size_t n = s.starts.size(), rank = dims.size();
  for (size_t k = 0; k < rank; ++k) r.axes.push_back({0, 1, dims[k]});
  auto fail = [&](SliceError e, size_t entry, int64_t axis) {
    r.error = e;
    r.entry = entry;
    r.axis = axis;
    return r;
  };
  if (s.ends.size() != n || (s.has_axes && s.axes.size() != n) ||
      (s.has_steps && s.steps.size() != n))
    return fail(SliceError::lengths, 0, 0);
  if (!s.has_axes && n > rank) return fail(SliceError::too_many, 0, 0);
  std::vector<bool> seen(rank, false);
  const auto r64 = static_cast<int64_t>(rank);
  for (size_t i = 0; i < n; ++i) {
    const int64_t given = s.has_axes ? s.axes[i] : static_cast<int64_t>(i);
    if (given < -r64 || given >= r64) return fail(SliceError::axis_range, i, given);
    const auto a = static_cast<size_t>(given < 0 ? given + r64 : given);
    if (seen[a]) return fail(SliceError::axis_repeated, i, given);
    seen[a] = true;
    const int64_t step = s.has_steps ? s.steps[i] : 1;
    if (step == 0) return fail(SliceError::zero_step, i, given);
    r.axes[a] = slice_axis(s.starts[i], s.ends[i], step, dims[a]);
  }
  return r;
}

}  // namespace oi::geometry
