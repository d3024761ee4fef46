// The window geometry shared by conv, max_pool and avg_pool (ops-nn.md): x is [N, C, W] or
// [N, C, H, W]; a 1-D op runs as a 2-D one with H = 1, a one-tap kernel and no padding on H.
// Settings default to stride 1, pad 0 and dilation 1; the validator already checked them, but a
// kernel called directly still gets a clear error instead of a read outside the tensor.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cpu_status.hpp"
#include "openinfer/plugin_abi.hpp"
#include "openinfer/window.hpp"

namespace oi::cpu {

// The SDK's 2-D window (openinfer/window.hpp), shared with the validator, the Vulkan backend
// and the emitters.
using WindowGeometry = geometry::Window2d;
using geometry::IndexRange;

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
  const geometry::WindowMismatch m = geometry::window_2d(
      std::span<const uint64_t>(x.dims, x.rank), std::span<const uint64_t>(y.dims, y.rank),
      std::vector<uint64_t>(kernel.begin(), kernel.end()), strides, dilations, pads, g);
  if (!m.ok)
    fail(OI_STATUS_INVALID_ARGUMENT,
         std::string(op) + ": spatial axis " + std::to_string(m.axis) + " of y has " +
             std::to_string(y.dims[2 + m.axis]) + " cells, the window geometry gives " +
             (m.fits ? std::to_string(m.want)
                     : std::string("none (window larger than the padded input)")));
  return g;
}

}  // namespace oi::cpu
