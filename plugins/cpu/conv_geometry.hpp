// The window geometry shared by conv, max_pool and avg_pool (ops-nn.md): x is [N, C, W] or
// [N, C, H, W]; a 1-D op runs as a 2-D one with H = 1, a one-tap kernel and no padding on H.
// Settings default to stride 1, pad 0 and dilation 1; the validator already checked them, but a
// kernel called directly still gets a clear error instead of a read outside the tensor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_status.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::cpu {

struct WindowGeometry {
  uint64_t batch = 0, channels = 0;  // N and C of x
  uint64_t in_h = 1, in_w = 1;       // input spatial size
  uint64_t out_h = 1, out_w = 1;     // output spatial size (from the output tensor)
  uint64_t k_h = 1, k_w = 1;         // kernel taps
  uint64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  uint64_t pad_top = 0, pad_left = 0;  // begin pads; end pads only bound the output size

  uint64_t in_plane() const { return in_h * in_w; }
  uint64_t out_plane() const { return out_h * out_w; }
  uint64_t taps() const { return k_h * k_w; }
};

// conv's shape: the window geometry of x plus the output channels and the group count.
struct ConvShape {
  WindowGeometry g;
  uint64_t out_channels = 0, group = 1;
  uint64_t in_per_group() const { return g.channels / group; }
  uint64_t out_per_group() const { return out_channels / group; }
  uint64_t inner() const { return in_per_group() * g.taps(); }  // K of each group's matmul
};

// A per-spatial-axis list setting, or `fallback` on every axis when absent.
inline std::vector<int64_t> spatial_setting(const oi_kernel_call& call, const char* op,
                                            const char* name, uint32_t count, int64_t fallback,
                                            int64_t minimum) {
  const oi_setting* s = abi::find_setting(call, name);
  if (s == nullptr) return std::vector<int64_t>(count, fallback);
  if (s->type != OI_SETTING_INT_LIST || s->list_length != count)
    fail(OI_STATUS_INVALID_ARGUMENT, std::string(op) + ": '" + name + "' must be a list of " +
                                         std::to_string(count) + " integers");
  std::vector<int64_t> v(s->list_values, s->list_values + s->list_length);
  for (int64_t e : v)
    if (e < minimum)
      fail(OI_STATUS_INVALID_ARGUMENT, std::string(op) + ": '" + name + "' entry " +
                                           std::to_string(e) + " is below " +
                                           std::to_string(minimum));
  return v;
}

// x = call.inputs[0], y = call.outputs[0]; `kernel` gives the taps per spatial axis.
inline WindowGeometry window_geometry(const oi_kernel_call& call, const char* op,
                                      const std::vector<int64_t>& kernel, bool has_dilations) {
  const oi_tensor_desc& x = call.inputs[0];
  const oi_tensor_desc& y = call.outputs[0];
  if ((x.rank != 3 && x.rank != 4) || y.rank != x.rank)
    fail(OI_STATUS_INVALID_ARGUMENT,
         std::string(op) + ": x and y need rank 3 (N, C, W) or 4 (N, C, H, W)");
  const uint32_t n = x.rank - 2;
  const auto strides = spatial_setting(call, op, "strides", n, 1, 1);
  const auto dilations =
      has_dilations ? spatial_setting(call, op, "dilations", n, 1, 1) : std::vector<int64_t>(n, 1);
  const auto pads = spatial_setting(call, op, "pads", 2 * n, 0, 0);
  WindowGeometry g;
  g.batch = x.dims[0];
  g.channels = x.dims[1];
  // Axis i of the op (0-based among the spatial ones) maps to H or W; 1-D uses only W.
  for (uint32_t i = 0; i < n; ++i) {
    const bool is_w = i == n - 1;
    const uint64_t in = x.dims[2 + i], out = y.dims[2 + i];
    const auto k = static_cast<uint64_t>(kernel[i]);
    const auto s = static_cast<uint64_t>(strides[i]), d = static_cast<uint64_t>(dilations[i]);
    const auto pb = static_cast<uint64_t>(pads[i]), pe = static_cast<uint64_t>(pads[n + i]);
    const uint64_t padded = in + pb + pe, span = d * (k - 1) + 1;
    // An empty axis gives an empty result (ops-nn.md), whatever the window.
    const bool too_small = padded < span && in != 0;
    const uint64_t want = padded < span ? 0 : (padded - span) / s + 1;
    if (too_small || out != want)
      fail(OI_STATUS_INVALID_ARGUMENT,
           std::string(op) + ": spatial axis " + std::to_string(i) + " of y has " +
               std::to_string(out) + " cells, the window geometry gives " +
               (too_small ? std::string("none (window larger than the padded input)")
                          : std::to_string(want)));
    (is_w ? g.in_w : g.in_h) = in;
    (is_w ? g.out_w : g.out_h) = out;
    (is_w ? g.k_w : g.k_h) = k;
    (is_w ? g.stride_w : g.stride_h) = s;
    (is_w ? g.dil_w : g.dil_h) = d;
    (is_w ? g.pad_left : g.pad_top) = pb;
  }
  return g;
}

// The output range [lo, hi) of one spatial axis whose tap `t` reads inside the input:
// lo*s + t*d >= pad and (hi-1)*s + t*d < pad + in.
struct ValidRange {
  uint64_t lo, hi;
};
inline ValidRange valid_outputs(uint64_t out, uint64_t in, uint64_t s, uint64_t d, uint64_t pad,
                                uint64_t t) {
  const uint64_t off = t * d;  // input index = o*s + off - pad
  uint64_t lo = off >= pad ? 0 : (pad - off + s - 1) / s;
  uint64_t hi = pad + in > off ? (pad + in - off + s - 1) / s : 0;
  if (hi > out) hi = out;
  if (lo > hi) lo = hi;
  return {lo, hi};
}

}  // namespace oi::cpu
