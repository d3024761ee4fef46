// conv(x, w[, b]) -> y (ops-nn.md, ONNX Conv): 1-D and 2-D, strides, pads, dilations, group.
// Floats compute in f32 (f64 for f64) through conv_float.hpp and round once to y's dtype; i8/u8
// sum their products exactly in 64-bit integers and wrap once at y's width (i8/u8, or i32/u32
// with acc=), which equals wrapping accumulation at that width.
#include <string>
#include <vector>

#include "../conv_float.hpp"
#include "../cpu_status.hpp"
#include "../dtype_io.hpp"
#include "../element_types.hpp"
#include "../generic_elementwise.hpp"
#include "../kernel_registry.hpp"

namespace oi::cpu {
namespace {

ConvShape conv_shape(const oi_kernel_call& call) {
  if (call.num_inputs < 2 || call.num_inputs > 3 || call.num_outputs != 1)
    fail(OI_STATUS_INVALID_ARGUMENT, "conv takes x, w and an optional bias, and one output");
  const oi_tensor_desc& x = call.inputs[0];
  const oi_tensor_desc& w = call.inputs[1];
  if ((x.rank != 3 && x.rank != 4) || w.rank != x.rank)
    fail(OI_STATUS_INVALID_ARGUMENT,
         "conv: x needs rank 3 or 4 and w the same rank ([M, C/group, kernel...])");
  ConvShape s;
  s.out_channels = w.dims[0];
  const int64_t group = abi::setting_int(call, "group", 1);
  if (group < 1 || x.dims[1] % static_cast<uint64_t>(group) != 0 ||
      w.dims[0] % static_cast<uint64_t>(group) != 0 ||
      w.dims[1] * static_cast<uint64_t>(group) != x.dims[1])
    fail(OI_STATUS_INVALID_ARGUMENT, "conv: group " + std::to_string(group) + " does not fit x's " +
                                         std::to_string(x.dims[1]) + " channels and w's [" +
                                         std::to_string(w.dims[0]) + ", " +
                                         std::to_string(w.dims[1]) + ", ...]");
  s.group = static_cast<uint64_t>(group);
  if (call.num_inputs == 3 && (call.inputs[2].rank != 1 || call.inputs[2].dims[0] != w.dims[0]))
    fail(OI_STATUS_INVALID_ARGUMENT, "conv: the bias must be [M], one value per output channel");
  std::vector<int64_t> kernel;
  for (uint32_t i = 2; i < w.rank; ++i) {
    if (w.dims[i] == 0) fail(OI_STATUS_INVALID_ARGUMENT, "conv: w has an empty kernel");
    kernel.push_back(static_cast<int64_t>(w.dims[i]));
  }
  s.g = window_geometry(call, "conv", kernel, true);  // checks y's rank first
  const oi_tensor_desc& y = call.outputs[0];
  if (y.dims[0] != x.dims[0] || y.dims[1] != w.dims[0])
    fail(OI_STATUS_INVALID_ARGUMENT, "conv: y must be [N, M, ...]");
  return s;
}

// A tensor as contiguous C values: the data itself when it already is, else a converted copy.
template <class C>
const C* as_compute(const oi_tensor_desc& t, const std::byte* p, std::vector<C>& copy) {
  const uint64_t n = abi::element_count(t);
  if (t.dtype == dtype_tag_v<C> && reinterpret_cast<uintptr_t>(p) % alignof(C) == 0)
    return reinterpret_cast<const C*>(p);
  const ElemIO& io = elem_io(t.dtype);
  copy.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<C, float>) {
      copy[i] = io.ld_f32(p, i);
    } else {
      copy[i] = io.ld_f64(p, i);
    }
  }
  return copy.data();
}

template <class C>
void conv_float(const oi_kernel_call& call, const ConvShape& s) {
  std::vector<C> xs, ws, bs, ys;
  const C* x = as_compute<C>(call.inputs[0], input_data(call, 0), xs);
  const C* w = as_compute<C>(call.inputs[1], input_data(call, 1), ws);
  const C* b =
      call.num_inputs == 3 ? as_compute<C>(call.inputs[2], input_data(call, 2), bs) : nullptr;
  const oi_tensor_desc& yd = call.outputs[0];
  std::byte* py = output_data(call, 0);
  const uint64_t n = abi::element_count(yd);
  const bool direct =
      yd.dtype == dtype_tag_v<C> && reinterpret_cast<uintptr_t>(py) % alignof(C) == 0;
  if (!direct) ys.resize(n);
  C* y = direct ? reinterpret_cast<C*>(py) : ys.data();
  conv_compute<C>(x, w, b, y, s);
  if (direct) return;
  const ElemIO& io = elem_io(yd.dtype);
  for (uint64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<C, float>) {
      io.st_f32(py, i, y[i]);
    } else {
      io.st_f64(py, i, y[i]);
    }
  }
}

// Integer conv: one sum per output element, in wrapping 64-bit arithmetic.
void conv_int(const oi_kernel_call& call, const ConvShape& s) {
  const WindowGeometry& g = s.g;
  const ElemIO& ix = elem_io(call.inputs[0].dtype);
  const ElemIO& iw = elem_io(call.inputs[1].dtype);
  const ElemIO* ib = call.num_inputs == 3 ? &elem_io(call.inputs[2].dtype) : nullptr;
  const ElemIO& iy = elem_io(call.outputs[0].dtype);
  const std::byte* px = input_data(call, 0);
  const std::byte* pw = input_data(call, 1);
  const std::byte* pb = ib ? input_data(call, 2) : nullptr;
  std::byte* py = output_data(call, 0);
  const uint64_t M = s.out_channels, Mg = s.out_per_group(), Cg = s.in_per_group();
  const uint64_t P = g.out_plane();
  parallel_ranges(g.batch * M, P * s.inner(), [&](uint64_t begin, uint64_t end) {
    for (uint64_t plane = begin; plane < end; ++plane) {
      const uint64_t n = plane / M, m = plane % M, c0 = (m / Mg) * Cg;
      const uint64_t bias = ib ? static_cast<uint64_t>(ib->ld_i(pb, m)) : 0;
      for (uint64_t oh = 0; oh < g.out_h; ++oh) {
        for (uint64_t ow = 0; ow < g.out_w; ++ow) {
          uint64_t acc = bias;
          for (uint64_t c = 0; c < Cg; ++c) {
            const uint64_t xbase = (n * g.channels + c0 + c) * g.in_plane();
            const uint64_t wbase = (m * Cg + c) * g.taps();
            for (uint64_t kh = 0; kh < g.k_h; ++kh) {
              const uint64_t ih = oh * g.stride_h + kh * g.dil_h;  // padded coordinates
              if (ih < g.pad_top || ih - g.pad_top >= g.in_h) continue;
              for (uint64_t kw = 0; kw < g.k_w; ++kw) {
                const uint64_t iw_ = ow * g.stride_w + kw * g.dil_w;
                if (iw_ < g.pad_left || iw_ - g.pad_left >= g.in_w) continue;
                const auto xv = static_cast<uint64_t>(
                    ix.ld_i(px, xbase + (ih - g.pad_top) * g.in_w + iw_ - g.pad_left));
                const auto wv = static_cast<uint64_t>(iw.ld_i(pw, wbase + kh * g.k_w + kw));
                acc += xv * wv;
              }
            }
          }
          iy.st_i(py, plane * P + oh * g.out_w + ow, static_cast<int64_t>(acc));
        }
      }
    }
  });
}

oi_status* conv_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const ConvShape s = conv_shape(*call);
  const uint32_t t = call->inputs[0].dtype;
  if (t == OI_DTYPE_F64) {
    conv_float<double>(*call, s);
  } else if (elem_io(t).is_float) {
    conv_float<float>(*call, s);
  } else {
    conv_int(*call, s);
  }
  OI_ABI_CATCH(call->host)
}

void register_conv(KernelList& list) {
  add_each(list, "conv", {kFloats}, 2, &conv_kernel, false);
  add_each(list, "conv", {kFloats}, 3, &conv_kernel, false);
  add_each(list, "conv", {{dt::I8, dt::U8}}, 2, &conv_kernel, false);
  add_each(list, "conv", {{dt::I8, dt::U8}}, 3, &conv_kernel, false);
  // acc=i32 / acc=u32: the bias is x's dtype or the accumulator's.
  for (auto [in, acc] : {std::pair{dt::I8, dt::I32}, std::pair{dt::U8, dt::U32}}) {
    list.add("conv", {in, in}, acc, OI_KERNEL_MODE_ACCUMULATE, &conv_kernel);
    list.add("conv", {in, in, in}, acc, OI_KERNEL_MODE_ACCUMULATE, &conv_kernel);
    list.add("conv", {in, in, acc}, acc, OI_KERNEL_MODE_ACCUMULATE, &conv_kernel);
  }
}

const KernelRegistration registration(register_conv);

}  // namespace
}  // namespace oi::cpu
