// layer_norm and rms_norm over axes `axis`..rank-1 (ops-nn.md): each row of those trailing
// elements is one contiguous run. Statistics accumulate in f32 (f64 for f64):
//   layer_norm: y = (x - mean) / sqrt(var + eps) * scale [+ bias], var the population variance;
//   rms_norm:   y = x / sqrt(mean(x^2) + eps) * scale;
// each result rounded once to the output dtype. scale and bias have the trailing dims.
// All-f32 operands take row_ops_f32's vector path where the CPU has AVX2 and FMA.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "axis.hpp"
#include "cpu_status.hpp"
#include "dtype_io.hpp"
#include "element_types.hpp"
#include "openinfer/plugin_abi.hpp"
#include "parallel.hpp"
#include "row_ops_f32.hpp"

namespace oi::cpu {

template <class C, bool Rms>
void norm_rows(const oi_kernel_call& call, uint32_t axis, C eps) {
  const ElemIO& io = elem_io(call.inputs[0].dtype);
  const std::byte* x = input_data(call, 0);
  const std::byte* scale = input_data(call, 1);
  const std::byte* bias = call.num_inputs > 2 ? input_data(call, 2) : nullptr;
  std::byte* out = output_data(call, 0);
  uint64_t rows = 1, len = 1;
  for (uint32_t k = 0; k < call.inputs[0].rank; ++k)
    (k < axis ? rows : len) *= call.inputs[0].dims[k];
  if (rows == 0 || len == 0) return;
  if constexpr (std::is_same_v<C, float>) {
    bool f32 = call.outputs[0].dtype == OI_DTYPE_F32 &&
               reinterpret_cast<uintptr_t>(out) % alignof(float) == 0;
    for (uint32_t i = 0; i < call.num_inputs; ++i)
      f32 = f32 && call.inputs[i].dtype == OI_DTYPE_F32 &&
            reinterpret_cast<uintptr_t>(input_data(call, i)) % alignof(float) == 0;
    auto as_f32 = [](const std::byte* p) { return reinterpret_cast<const float*>(p); };
    if (f32 && norm_rows_f32(as_f32(x), as_f32(scale), as_f32(bias), reinterpret_cast<float*>(out),
                             rows, len, eps, Rms))
      return;
  }
  auto ld = [&](const std::byte* p, uint64_t i) -> C {
    if constexpr (std::is_same_v<C, float>) {
      return io.ld_f32(p, i);
    } else {
      return io.ld_f64(p, i);
    }
  };
  auto st = [&](uint64_t i, C v) {
    if constexpr (std::is_same_v<C, float>) {
      io.st_f32(out, i, v);
    } else {
      io.st_f64(out, i, v);
    }
  };
  const C n = static_cast<C>(len);
  parallel_ranges(rows, len * 4, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      const uint64_t base = r * len;
      C mean = 0;
      if constexpr (!Rms) {
        C sum = 0;
        for (uint64_t k = 0; k < len; ++k) sum += ld(x, base + k);
        mean = sum / n;
      }
      C dev = 0, sq = 0;
      for (uint64_t k = 0; k < len; ++k) {
        const C d = ld(x, base + k) - mean;
        dev += d;
        sq += d * d;
      }
      C var = sq / n;
      if constexpr (!Rms) {
        // The corrected two-pass variance: the deviations' sum measures the rounding error of
        // the mean, which is added back, so rows far from 0 keep their precision.
        const C c = dev / n;
        mean += c;
        var = std::max(C(0), var - c * c);
      }
      const C inv = C(1) / std::sqrt(var + eps);
      for (uint64_t k = 0; k < len; ++k) {
        C y = (ld(x, base + k) - mean) * inv * ld(scale, k);
        if (bias != nullptr) y += ld(bias, k);
        st(base + k, y);
      }
    }
  });
}

template <bool Rms>
oi_status* norm_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const char* op = Rms ? "rms_norm" : "layer_norm";
  const uint32_t axis = call_axis(*call, op, -1);
  const double eps = abi::setting_float(*call, "epsilon", Rms ? 1e-6 : 1e-5);
  if (call->inputs[0].dtype == OI_DTYPE_F64) {
    norm_rows<double, Rms>(*call, axis, eps);
  } else {
    norm_rows<float, Rms>(*call, axis, static_cast<float>(eps));
  }
  OI_ABI_CATCH(call->host)
}

}  // namespace oi::cpu
