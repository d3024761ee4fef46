// Sliding windows of conv, max_pool and avg_pool (ops-nn.md, ONNX floor mode), header-only in the
// plugin SDK: the validator's shape rules, both backends and both emitters size and walk windows
// here. One spatial axis of `in` cells, a kernel of `kernel` taps `dilation` apart, moved by
// `stride`, over the input padded with `pad_begin` and `pad_end` cells:
//   out = floor((in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride) + 1,
// and output cell o, tap t reads input cell o * stride + t * dilation - pad_begin (a padded cell
// when that is outside [0, in)). The per-axis arithmetic is openinfer/geometry.h's (C11 and C++),
// which C kernels and generated C share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "openinfer/geometry.h"

namespace oi::geometry {

struct WindowAxis {
  uint64_t in = 1, kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0;

  // The axis as openinfer/geometry.h takes it (the arithmetic below is that header's).
  constexpr oi_window_axis c() const { return {in, kernel, stride, dilation, pad_begin, pad_end}; }
  constexpr uint64_t padded() const { return oi_window_padded(c()); }
  // Input cells one window covers, first tap to last.
  constexpr uint64_t span() const { return oi_window_span(c()); }
  // The window fits the padded input at least once (kernel >= 1 assumed).
  constexpr bool fits() const { return oi_window_fits(c()) != 0; }
  // A valid axis: the window fits, or the axis is empty (ops-nn.md: an empty result, never an
  // error, even where no window would fit).
  constexpr bool valid() const { return oi_window_valid(c()) != 0; }
  // Output cells: 0 where the window does not fit.
  constexpr uint64_t output() const { return oi_window_output(c()); }
};

// A half-open range [lo, hi).
struct IndexRange {
  uint64_t lo, hi;
};

// The outputs o < out whose tap `tap` reads inside the input:
// o * stride + tap * dilation >= pad_begin and < pad_begin + in.
constexpr IndexRange valid_outputs(const WindowAxis& a, uint64_t out, uint64_t tap) {
  const oi_index_range r = oi_window_valid_outputs(a.c(), out, tap);
  return {r.lo, r.hi};
}

// The taps t < kernel of output cell `o` that read inside the input.
constexpr IndexRange valid_taps(const WindowAxis& a, uint64_t o) {
  const oi_index_range r = oi_window_valid_taps(a.c(), o);
  return {r.lo, r.hi};
}

// x [N, C, W] or [N, C, H, W] as a 2-D window: a 1-D op runs with H = 1, a one-tap kernel and no
// padding on H. Field names follow the H/W convention of the kernels that use it.
struct Window2d {
  uint64_t batch = 0, channels = 0;  // N and C of x
  uint64_t in_h = 1, in_w = 1;       // input spatial size
  uint64_t out_h = 1, out_w = 1;     // output spatial size (y's)
  uint64_t k_h = 1, k_w = 1;         // kernel taps
  uint64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  uint64_t pad_top = 0, pad_left = 0;      // begin pads
  uint64_t pad_bottom = 0, pad_right = 0;  // end pads (they only bound the output size)

  uint64_t in_plane() const { return in_h * in_w; }
  uint64_t out_plane() const { return out_h * out_w; }
  uint64_t taps() const { return k_h * k_w; }
  WindowAxis axis_h() const { return {in_h, k_h, stride_h, dil_h, pad_top, pad_bottom}; }
  WindowAxis axis_w() const { return {in_w, k_w, stride_w, dil_w, pad_left, pad_right}; }
};

// Spatial axis `axis` of y does not hold what the window gives (`want`; none when it does not
// fit a non-empty input, `fits` false).
struct WindowMismatch {
  bool ok = true;
  size_t axis = 0;
  uint64_t want = 0;
  bool fits = true;
};

// Fills `g` from x's and y's dims (rank 3 or 4, equal; the caller checks) and per spatial axis
// `kernel`, `strides`, `dilations` and `pads` ([begin..., end...]), all positive (pads
// non-negative). An empty input axis gives an empty output whatever the window (ops-nn.md).
inline WindowMismatch window_2d(std::span<const uint64_t> x, std::span<const uint64_t> y,
                                std::span<const uint64_t> kernel, std::span<const int64_t> strides,
                                std::span<const int64_t> dilations, std::span<const int64_t> pads,
                                Window2d& g) {
  const size_t n = x.size() - 2;
  g = Window2d{};
  g.batch = x[0];
  g.channels = x[1];
  for (size_t i = 0; i < n; ++i) {
    const WindowAxis a{x[2 + i],
                       kernel[i],
                       static_cast<uint64_t>(strides[i]),
                       static_cast<uint64_t>(dilations[i]),
                       static_cast<uint64_t>(pads[i]),
                       static_cast<uint64_t>(pads[n + i])};
    const uint64_t out = y[2 + i], want = a.output();
    if ((!a.fits() && a.in != 0) || out != want) return {false, i, want, a.fits() || a.in == 0};
    const bool is_w = i == n - 1;  // 1-D uses only W
    (is_w ? g.in_w : g.in_h) = a.in;
    (is_w ? g.out_w : g.out_h) = out;
    (is_w ? g.k_w : g.k_h) = a.kernel;
    (is_w ? g.stride_w : g.stride_h) = a.stride;
    (is_w ? g.dil_w : g.dil_h) = a.dilation;
    (is_w ? g.pad_left : g.pad_top) = a.pad_begin;
    (is_w ? g.pad_right : g.pad_bottom) = a.pad_end;
  }
  return {};
}

}  // namespace oi::geometry
