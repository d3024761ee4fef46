// conv, max_pool, avg_pool (1-D as 2-D with H = 1) and batch_norm of ops-nn.md on
// shaders/spatial.comp: one invocation per output element (direct loops, no im2col). f64 conv,
// avg_pool and batch_norm run on the spatial_f64 variant (devices with shaderFloat64). Float
// convs (f32, f16, bf16, f8) take the tiled paths of conv_fast.cpp where one applies.
#include <algorithm>
#include <bit>
#include <limits>
#include <span>
#include <string>

#include "conv_fast.hpp"
#include "ew_ops.hpp"
#include "openinfer/plugin_abi.hpp"
#include "openinfer/window.hpp"

namespace oi::vulkan {
namespace {

enum class SpatialOp : uint32_t { Conv = 0, MaxPool = 1, AvgPool = 2, BatchNorm = 3 };

[[noreturn]] void fail(const char* op, oi_status_code code, const std::string& why) {
  throw abi::StatusError(code, std::string(op) + ": " + why);
}

uint32_t fit32(uint64_t v) {
  if (v > std::numeric_limits<uint32_t>::max() / 2) {
    throw abi::StatusError(OI_STATUS_DECLINED, "vulkan: sizes above 2^31");
  }
  return static_cast<uint32_t>(v);
}

// A packed tensor starts at bit 0 of its first byte: 8 / bits elements a byte.
uint32_t element_index(const oi_tensor_desc& t) {
  const uint32_t bits = dtype_bits(t.dtype);
  if (bits < 8) return fit32(t.byte_offset * (8 / bits));
  const uint32_t size = bits / 8;
  if (t.byte_offset % size != 0) {
    throw abi::StatusError(OI_STATUS_DECLINED,
                           "vulkan: tensor byte offsets must be multiples of the element size");
  }
  return fit32(t.byte_offset / size);
}

// A spatial setting: one value per spatial axis, or the default.
std::vector<int64_t> per_axis(const oi_kernel_call& c, const char* name, size_t n, int64_t dflt) {
  const oi_setting* s = abi::find_setting(c, name);
  if (s == nullptr) return std::vector<int64_t>(n, dflt);
  return {s->list_values, s->list_values + s->list_length};
}

template <SpatialOp Op>
oi_status* spatial_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const char* name = Op == SpatialOp::Conv      ? "conv"
                     : Op == SpatialOp::MaxPool ? "max_pool"
                     : Op == SpatialOp::AvgPool ? "avg_pool"
                                                : "batch_norm";
  const oi_tensor_desc& x = call->inputs[0];
  const oi_tensor_desc& out = call->outputs[0];
  const uint64_t count = abi::element_count(out);
  if (count == 0) return nullptr;
  // f64 arithmetic on the f64 variant; max_pool compares bits, any dtype on the plain one.
  const bool f64 = x.dtype == OI_DTYPE_F64 && Op != SpatialOp::MaxPool;
  Dispatch job;
  job.shader = f64 ? "spatial_f64" : "spatial";
  job.float_width = f64 ? 64 : 32;
  job.spec = {static_cast<uint32_t>(Op), static_cast<uint32_t>(wide_dtype_code(x.dtype)), 99, 99};
  if (Op == SpatialOp::Conv && out.dtype != x.dtype) {  // acc=: i8/u8 into i32/u32
    job.spec[2] = static_cast<uint32_t>(wide_dtype_code(out.dtype));
    if (call->num_inputs > 2)
      job.spec[3] = static_cast<uint32_t>(wide_dtype_code(call->inputs[2].dtype));
  }
  std::vector<uint32_t>& p = job.params;
  p.assign(32, 0);
  p[0] = fit32(count);
  job.buffers[0] = x.buffer;
  p[18] = element_index(x);
  p[21] = element_index(out);
  fit32(p[21] + count + 4);
  job.buffers[5] = out.buffer;
  job.output = 5;
  if constexpr (Op == SpatialOp::BatchNorm) {
    if (x.rank < 2) fail(name, OI_STATUS_INVALID_ARGUMENT, "x needs rank >= 2");
    uint64_t rest = 1;
    for (uint32_t d = 2; d < x.rank; ++d) rest *= x.dims[d];
    p[2] = fit32(x.dims[1]);
    p[3] = fit32(rest);
    p[4] = 1;
    p[19] = element_index(call->inputs[1]);
    p[20] = element_index(call->inputs[2]);
    p[24] = element_index(call->inputs[3]);
    p[23] = element_index(call->inputs[4]);
    const double eps = abi::setting_float(*call, "epsilon", 1e-5);
    if (f64) {  // low word in 22, high word in 27 (23 is var's offset)
      const auto bits = std::bit_cast<uint64_t>(eps);
      p[22] = static_cast<uint32_t>(bits);
      p[27] = static_cast<uint32_t>(bits >> 32);
    } else {
      p[22] = std::bit_cast<uint32_t>(static_cast<float>(eps));
    }
    for (uint32_t i = 1; i < 5; ++i) job.buffers[i] = call->inputs[i].buffer;
  } else {
    if (x.rank != 3 && x.rank != 4) {
      fail(name, OI_STATUS_INVALID_ARGUMENT, "x must be (N, C, W) or (N, C, H, W)");
    }
    const size_t sp = x.rank - 2;
    const auto strides = per_axis(*call, "strides", sp, 1);
    const auto dil = per_axis(*call, "dilations", sp, 1);
    const auto pads = per_axis(*call, "pads", 2 * sp, 0);
    std::vector<int64_t> kernel;
    if constexpr (Op == SpatialOp::Conv) {
      const oi_tensor_desc& w = call->inputs[1];
      if (w.rank != x.rank) fail(name, OI_STATUS_INVALID_ARGUMENT, "w must have x's rank");
      kernel.assign(w.dims + 2, w.dims + w.rank);
    } else {
      kernel = per_axis(*call, "kernel", sp, 1);
    }
    if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp || kernel.size() != sp) {
      fail(name, OI_STATUS_INVALID_ARGUMENT,
           "one strides/dilations/kernel entry per spatial axis, pads twice");
    }
    if (out.rank != x.rank) fail(name, OI_STATUS_INVALID_ARGUMENT, "y must have x's rank");
    auto at_least = [&](const std::vector<int64_t>& v, int64_t lo) {
      return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e >= lo; });
    };
    if (!at_least(strides, 1) || !at_least(dil, 1) || !at_least(kernel, 1) || !at_least(pads, 0)) {
      fail(name, OI_STATUS_INVALID_ARGUMENT,
           "kernel, strides and dilations must be at least 1, pads at least 0");
    }
    geometry::Window2d g;  // the SDK's window arithmetic (openinfer/window.hpp)
    const geometry::WindowMismatch m = geometry::window_2d(
        std::span<const uint64_t>(x.dims, x.rank), std::span<const uint64_t>(out.dims, out.rank),
        std::vector<uint64_t>(kernel.begin(), kernel.end()), strides, dil, pads, g);
    if (!m.ok) {
      fail(name, OI_STATUS_INVALID_ARGUMENT,
           "spatial axis " + std::to_string(m.axis) + " of y has " +
               std::to_string(out.dims[2 + m.axis]) + " cells, the window gives " +
               std::to_string(m.want));
    }
    p[1] = fit32(g.batch);
    p[2] = fit32(g.channels);
    p[3] = fit32(g.in_h);
    p[4] = fit32(g.in_w);
    p[5] = fit32(out.dims[1]);
    p[6] = fit32(g.out_h);
    p[7] = fit32(g.out_w);
    p[8] = fit32(g.k_h);
    p[9] = fit32(g.k_w);
    p[10] = fit32(g.stride_h);
    p[11] = fit32(g.stride_w);
    p[12] = fit32(g.pad_top);
    p[13] = fit32(g.pad_left);
    p[25] = fit32(g.pad_bottom);
    p[26] = fit32(g.pad_right);
    p[14] = fit32(g.dil_h);
    p[15] = fit32(g.dil_w);
    p[16] = 1;
    if constexpr (Op == SpatialOp::Conv) {
      const int64_t group = abi::setting_int(*call, "group", 1);
      if (group < 1 || x.dims[1] % group != 0 || out.dims[1] % group != 0) {
        fail(name, OI_STATUS_INVALID_ARGUMENT, "group must divide the input and output channels");
      }
      const oi_tensor_desc& w = call->inputs[1];
      if (w.dims[0] != out.dims[1] || w.dims[1] * static_cast<uint64_t>(group) != x.dims[1]) {
        fail(name, OI_STATUS_INVALID_ARGUMENT, "w must be [M, C/group, kernel...] for y's M");
      }
      p[16] = fit32(group);
      p[19] = element_index(w);
      fit32(p[18] + abi::element_count(x) + 4);  // every index a shader forms fits
      fit32(p[19] + abi::element_count(w) + 4);
      job.buffers[1] = w.buffer;
      if (call->num_inputs > 2) {
        p[17] |= 1;
        p[20] = element_index(call->inputs[2]);
        job.buffers[2] = call->inputs[2].buffer;
      }
      // Floats of one dtype: the tiled paths of conv_fast.cpp where one applies.
      if (!f64 && out.dtype == x.dtype) {
        const ConvShape shape{.n = p[1],
                              .c = p[2],
                              .h = p[3],
                              .w = p[4],
                              .oc = p[5],
                              .oh = p[6],
                              .ow = p[7],
                              .kh = p[8],
                              .kw = p[9],
                              .sh = p[10],
                              .sw = p[11],
                              .ph = p[12],
                              .pw = p[13],
                              .dh = p[14],
                              .dw = p[15],
                              .group = p[16],
                              .x0 = p[18],
                              .w0 = p[19],
                              .b0 = p[20],
                              .y0 = p[21],
                              .bias = (p[17] & 1) != 0,
                              .dtype = x.dtype};
        if (run_conv_fast(*call, shape)) return nullptr;
      }
    }
    if (Op == SpatialOp::AvgPool && abi::setting_bool(*call, "count_include_pad", false))
      p[17] |= 2;
  }
  job.groups[0] = std::min<uint32_t>((p[0] + 255) / 256, 65535);
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void register_spatial(std::vector<VulkanKernel>& list) {
  for (uint32_t t : dtype_union({kEwFloats, kEwF8, {OI_DTYPE_F64}})) {
    auto add = [&](const char* op, std::vector<uint32_t> ins, oi_kernel_mode mode,
                   oi_kernel_fn fn) {
      list.push_back({op, std::move(ins), t, mode, needs_for(t), fn});
    };
    add("conv", {t, t}, OI_KERNEL_MODE_NORMAL, &spatial_kernel<SpatialOp::Conv>);
    add("conv", {t, t, t}, OI_KERNEL_MODE_NORMAL, &spatial_kernel<SpatialOp::Conv>);
    add("avg_pool", {t}, OI_KERNEL_MODE_NORMAL, &spatial_kernel<SpatialOp::AvgPool>);
    for (oi_kernel_mode m : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
      add("batch_norm", {t, t, t, t, t}, m, &spatial_kernel<SpatialOp::BatchNorm>);
    }
  }
  for (uint32_t t : {OI_DTYPE_I8, OI_DTYPE_U8}) {  // integer conv, wrapping at the width
    for (uint32_t n : {2u, 3u}) {
      list.push_back({"conv", std::vector<uint32_t>(n, t), t, OI_KERNEL_MODE_NORMAL, Needs::Nothing,
                      &spatial_kernel<SpatialOp::Conv>});
    }
    // acc=: into i32/u32, the bias of x's dtype or of the accumulator's
    const uint32_t acc = t == OI_DTYPE_I8 ? OI_DTYPE_I32 : OI_DTYPE_U32;
    for (std::vector<uint32_t> ins : {std::vector<uint32_t>{t, t}, {t, t, t}, {t, t, acc}}) {
      list.push_back({"conv", std::move(ins), acc, OI_KERNEL_MODE_ACCUMULATE, Needs::Nothing,
                      &spatial_kernel<SpatialOp::Conv>});
    }
  }
  // max_pool moves bits: the 8-byte types need no 64-bit shader arithmetic.
  const std::vector<uint32_t> wide = {OI_DTYPE_F64, OI_DTYPE_I64,  OI_DTYPE_U64,
                                      OI_DTYPE_F8,  OI_DTYPE_BOOL, OI_DTYPE_BITSET};
  for (uint32_t t :
       dtype_union({kEwFloats, kEwSigned, kEwUnsigned, kEwPackedSigned, kEwPackedUnsigned, wide})) {
    list.push_back({"max_pool",
                    {t},
                    t,
                    OI_KERNEL_MODE_NORMAL,
                    Needs::Nothing,
                    &spatial_kernel<SpatialOp::MaxPool>});
  }
}

const KernelRegistration registration(register_spatial);

}  // namespace
}  // namespace oi::vulkan
