// batch_norm(x, scale, bias, mean, var) -> y (ops-nn.md, ONNX BatchNormalization inference
// form) over channel axis 1 of x [N, C, ...], F dtypes, in place allowed:
//   y = (x - mean) * (scale / sqrt(var + epsilon)) + bias,  epsilon = 1e-5 by default,
// computed in f32 (f64 for f64) and rounded once to y's dtype. Each element is read before
// its own slot is written, so in place is safe.
#include <cmath>
#include <vector>

#include "../conv_simd.hpp"
#include "../dtype_io.hpp"
#include "../element_types.hpp"
#include "../generic_elementwise.hpp"
#include "../kernel_registry.hpp"
#include "../parallel.hpp"

namespace oi::cpu {
namespace {

template <class C>
void batch_norm(const oi_kernel_call& call, C eps) {
  const oi_tensor_desc& x = call.inputs[0];
  const ElemIO& io = elem_io(x.dtype);
  const uint64_t N = x.dims[0], channels = x.dims[1];
  uint64_t inner = 1;
  for (uint32_t k = 2; k < x.rank; ++k) inner *= x.dims[k];
  auto ld = [&](const std::byte* p, uint64_t i) -> C {
    if constexpr (std::is_same_v<C, float>) {
      return io.ld_f32(p, i);
    } else {
      return io.ld_f64(p, i);
    }
  };
  // Per channel: the multiplier scale / sqrt(var + eps), the mean and the bias.
  std::vector<C> mul(channels), mean(channels), bias(channels);
  for (uint64_t c = 0; c < channels; ++c) {
    mul[c] = ld(input_data(call, 1), c) / std::sqrt(ld(input_data(call, 4), c) + eps);
    mean[c] = ld(input_data(call, 3), c);
    bias[c] = ld(input_data(call, 2), c);
  }
  const std::byte* px = input_data(call, 0);
  std::byte* py = output_data(call, 0);
  const bool own_type = x.dtype == dtype_tag_v<C>;
  const bool aligned = reinterpret_cast<uintptr_t>(px) % alignof(C) == 0 &&
                       reinterpret_cast<uintptr_t>(py) % alignof(C) == 0;
  parallel_ranges(N * channels, inner, [&](uint64_t begin, uint64_t end) {
    for (uint64_t plane = begin; plane < end; ++plane) {
      const uint64_t c = plane % channels, base = plane * inner;
      const C m = mul[c], mu = mean[c], b = bias[c];
      if (own_type && aligned) {
        shift_scale_add<C>(inner, reinterpret_cast<const C*>(px) + base, mu, m, b,
                           reinterpret_cast<C*>(py) + base);
      } else if (own_type) {
        for (uint64_t i = base; i < base + inner; ++i)
          store<C>(py, i, (load<C>(px, i) - mu) * m + b);
      } else if constexpr (std::is_same_v<C, float>) {
        for (uint64_t i = base; i < base + inner; ++i) io.st_f32(py, i, (ld(px, i) - mu) * m + b);
      }
    }
  });
}

oi_status* batch_norm_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& x = call->inputs[0];
  if (call->num_inputs != 5 || x.rank < 2)
    fail(OI_STATUS_INVALID_ARGUMENT,
         "batch_norm takes x [N, C, ...], scale, bias, mean and var [C]");
  for (uint32_t i = 1; i < 5; ++i)
    if (call->inputs[i].rank != 1 || call->inputs[i].dims[0] != x.dims[1])
      fail(OI_STATUS_INVALID_ARGUMENT, "batch_norm: scale, bias, mean and var must be [C]");
  const double eps = abi::setting_float(*call, "epsilon", 1e-5);
  if (x.dtype == OI_DTYPE_F64) {
    batch_norm<double>(*call, eps);
  } else {
    batch_norm<float>(*call, static_cast<float>(eps));
  }
  OI_ABI_CATCH(call->host)
}

void register_batch_norm(KernelList& list) {
  add_each(list, "batch_norm", {kFloats}, 5, &batch_norm_kernel, true);
}

const KernelRegistration registration(register_batch_norm);

}  // namespace
}  // namespace oi::cpu
