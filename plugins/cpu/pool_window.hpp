// The windows of max_pool and avg_pool: each output cell of each (image, channel) plane visits
// the taps of its window that fall inside the input, in row-major tap order; padded cells are
// never visited (so they never win a max, and avg_pool counts them only by arithmetic).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conv_geometry.hpp"
#include "parallel.hpp"

namespace oi::cpu {

inline WindowGeometry pool_geometry(const oi_kernel_call& call, const char* op,
                                    bool has_dilations) {
  if (call.num_inputs != 1 || call.num_outputs != 1)
    fail(OI_STATUS_INVALID_ARGUMENT, std::string(op) + " takes one input and one output");
  const oi_tensor_desc& x = call.inputs[0];
  if (x.rank != 3 && x.rank != 4)
    fail(OI_STATUS_INVALID_ARGUMENT,
         std::string(op) + ": x needs rank 3 (N, C, W) or 4 (N, C, H, W)");
  if (abi::find_setting(call, "kernel") == nullptr)
    fail(OI_STATUS_INVALID_ARGUMENT, std::string(op) + ": the 'kernel' setting is required");
  const auto kernel = spatial_setting(call, op, "kernel", x.rank - 2, 1, 1);
  const WindowGeometry g = window_geometry(call, op, kernel, has_dilations);  // y's rank too
  const oi_tensor_desc& y = call.outputs[0];
  if (y.dims[0] != x.dims[0] || y.dims[1] != x.dims[1])
    fail(OI_STATUS_INVALID_ARGUMENT, std::string(op) + ": y must be [N, C, ...] like x");
  return g;
}

// The valid taps of one window: kernel rows [kh_lo, kh_hi) and columns [kw_lo, kw_hi).
struct WindowTaps {
  const WindowGeometry* g;
  uint64_t in0, oh, ow, kh_lo, kh_hi, kw_lo, kw_hi;
  uint64_t count() const { return (kh_hi - kh_lo) * (kw_hi - kw_lo); }
  // tap(in_index) for each valid tap, row-major.
  template <class Tap>
  void each(Tap&& tap) const {
    for (uint64_t kh = kh_lo; kh < kh_hi; ++kh) {
      const uint64_t ih = oh * g->stride_h + kh * g->dil_h - g->pad_top;
      const uint64_t row = in0 + ih * g->in_w;
      for (uint64_t kw = kw_lo; kw < kw_hi; ++kw)
        tap(row + ow * g->stride_w + kw * g->dil_w - g->pad_left);
    }
  }
};

// cell(out_index, taps) for every output element; planes run in parallel unless `serial`
// (packed outputs share bytes between neighbours).
template <class Cell>
void for_each_window(const WindowGeometry& g, bool serial, Cell&& cell) {
  const uint64_t planes = g.batch * g.channels, P = g.out_plane();
  auto run = [&](uint64_t begin, uint64_t end) {
    for (uint64_t plane = begin; plane < end; ++plane) {
      WindowTaps t{&g, plane * g.in_plane(), 0, 0, 0, 0, 0, 0};
      for (uint64_t oh = 0; oh < g.out_h; ++oh) {
        const IndexRange h = geometry::valid_taps(g.axis_h(), oh);
        t.oh = oh;
        t.kh_lo = h.lo;
        t.kh_hi = h.hi;
        for (uint64_t ow = 0; ow < g.out_w; ++ow) {
          const IndexRange w = geometry::valid_taps(g.axis_w(), ow);
          t.ow = ow;
          t.kw_lo = w.lo;
          t.kw_hi = w.hi;
          cell(plane * P + oh * g.out_w + ow, t);
        }
      }
    }
  };
  if (serial) {
    run(0, planes);
  } else {
    parallel_ranges(planes, P * g.taps(), run);
  }
}

}  // namespace oi::cpu
