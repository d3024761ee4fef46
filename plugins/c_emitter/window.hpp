// The window geometry conv, max_pool and avg_pool share (ops-nn.md): x is [N, C, W] or
// [N, C, H, W]; a 1-D op runs as a 2-D one with H = 1, one tap and no padding on H. Settings
// default to stride 1, pad 0 and dilation 1; the output's spatial size is checked against them.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "c_common.hpp"

namespace oi::c_emitter {

struct Window {
  uint64_t batch = 0, channels = 0;
  uint64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1, k_h = 1, k_w = 1;
  uint64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // the end pads only bound the output size
};

// `kernel` gives the taps per spatial axis; settings `strides`, `pads` and (with
// has_dilations) `dilations`.
Window window_geometry(const Value& x, const Value& y, const std::vector<uint64_t>& kernel,
                       const json::object& settings, bool has_dilations, const std::string& where);

// For the tap column `kw` of generated code: dx (the input column of output column 0, maybe
// negative) and [lo, hi), the output columns whose input column lies inside the row.
void window_columns(std::ostringstream& c, const Window& g, const std::string& indent);

}  // namespace oi::c_emitter
