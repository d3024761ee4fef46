// dequantize(x, scale[, zero_point]) (ops-nn.md): y = (x - zero_point)·scale with x i8, u8, i4
// or u4 (packed i4/u4 read in place, two per byte, LSB first), scale a scalar or 1-D along
// `axis` (default 1) and zero_point of scale's shape and x's dtype. y has scale's dtype. The
// difference is an exact integer; it is multiplied by scale in f32 (f64 for f64) and the
// product rounded once to y's dtype.
#include <vector>

#include "../axis.hpp"
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

template <class C>
void run_dequantize(const oi_kernel_call& call) {
  const oi_tensor_desc& x = call.inputs[0];
  const oi_tensor_desc& scale_desc = call.inputs[1];
  const bool per_axis = scale_desc.rank == 1;
  // A scalar scale applies everywhere: x is then one run along a length-1 axis.
  uint64_t len = 1, inner = abi::element_count(x);
  if (per_axis) {
    const AxisSplit split(x, call_axis(call, "dequantize", 1));
    len = split.len;
    inner = split.inner;
  }
  const uint64_t channels = per_axis ? scale_desc.dims[0] : 1;
  const bool has_zero = call.num_inputs > 2;
  const ElemIO& x_io = elem_io(x.dtype);
  const ElemIO& s_io = elem_io(scale_desc.dtype);
  const ElemIO& out_io = elem_io(call.outputs[0].dtype);
  const std::byte* xd = input_data(call, 0);
  std::vector<C> scale(channels);
  std::vector<int64_t> zero(channels, 0);
  for (uint64_t c = 0; c < channels; ++c) {
    if constexpr (std::is_same_v<C, float>) {
      scale[c] = s_io.ld_f32(input_data(call, 1), c);
    } else {
      scale[c] = s_io.ld_f64(input_data(call, 1), c);
    }
    if (has_zero) zero[c] = x_io.ld_i(input_data(call, 2), c);
  }
  std::byte* out = output_data(call, 0);
  // Runs of `inner` elements share one channel. i8/u8 into an aligned f32/f64 output take a
  // typed loop the compiler vectorises; the rest goes through ElemIO (packed i4/u4 in place).
  const uint64_t runs = inner == 0 ? 0 : abi::element_count(x) / inner;
  const bool byte_x = x.dtype == OI_DTYPE_I8 || x.dtype == OI_DTYPE_U8;
  const bool direct = byte_x && call.outputs[0].dtype == dtype_tag_v<C> && is_aligned<C>(out);
  parallel_ranges(runs, inner + 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      const uint64_t c = r % len, first = r * inner;
      const C s = scale[c];
      const int64_t z = zero[c];
      if (direct) {
        C* y = reinterpret_cast<C*>(out) + first;
        const auto z32 = static_cast<int32_t>(z);
        if (x.dtype == OI_DTYPE_I8) {
          const auto* xs = reinterpret_cast<const int8_t*>(xd) + first;
          for (uint64_t j = 0; j < inner; ++j) y[j] = static_cast<C>(xs[j] - z32) * s;
        } else {
          const auto* xs = reinterpret_cast<const uint8_t*>(xd) + first;
          for (uint64_t j = 0; j < inner; ++j) y[j] = static_cast<C>(xs[j] - z32) * s;
        }
        continue;
      }
      for (uint64_t i = first; i < first + inner; ++i) {
        const C y = static_cast<C>(x_io.ld_i(xd, i) - z) * s;
        if constexpr (std::is_same_v<C, float>) {
          out_io.st_f32(out, i, y);
        } else {
          out_io.st_f64(out, i, y);
        }
      }
    }
  });
}

oi_status* dequantize_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  if (call->inputs[1].dtype == OI_DTYPE_F64) {
    run_dequantize<double>(*call);
  } else {
    run_dequantize<float>(*call);
  }
  OI_ABI_CATCH(call->host)
}

void register_dequantize(KernelList& list) {
  for (uint32_t x : {dt::I8, dt::U8, dt::I4, dt::U4}) {
    for (uint32_t s : kFloats) {
      list.add("dequantize", {x, s}, s, OI_KERNEL_MODE_NORMAL, &dequantize_kernel);
      list.add("dequantize", {x, s, x}, s, OI_KERNEL_MODE_NORMAL, &dequantize_kernel);
    }
  }
}

const KernelRegistration registration(register_dequantize);

}  // namespace
}  // namespace oi::cpu
