// softmax and log_softmax over `axis` (ops-nn.md): per slice along the axis, m = max (NaN
// propagates), s = sum of e^(x - m) accumulated in f32 (f64 for f64), then e^(x - m) / s or
// (x - m) - log(s), rounded once to the output dtype. Subtracting m keeps e^ from overflowing.
// f32 over the last axis takes row_ops_f32's vector path where the CPU has AVX2 and FMA.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "axis.hpp"
#include "cpu_status.hpp"
#include "dtype_io.hpp"
#include "element_types.hpp"
#include "openinfer/plugin_abi.hpp"
#include "parallel.hpp"
#include "row_ops_f32.hpp"

namespace oi::cpu {

template <class C, bool Log>
void softmax_slices(const oi_kernel_call& call, uint32_t axis) {
  const ElemIO& in_io = elem_io(call.inputs[0].dtype);
  const ElemIO& out_io = elem_io(call.outputs[0].dtype);
  const std::byte* in = input_data(call, 0);
  std::byte* out = output_data(call, 0);
  const AxisSplit s(call.inputs[0], axis);
  if constexpr (std::is_same_v<C, float>) {
    const bool f32_rows = s.inner == 1 && call.inputs[0].dtype == OI_DTYPE_F32 &&
                          call.outputs[0].dtype == OI_DTYPE_F32 &&
                          reinterpret_cast<uintptr_t>(in) % alignof(float) == 0 &&
                          reinterpret_cast<uintptr_t>(out) % alignof(float) == 0;
    if (f32_rows && softmax_rows_f32(reinterpret_cast<const float*>(in),
                                     reinterpret_cast<float*>(out), s.outer, s.len, Log))
      return;
  }
  auto ld = [&](uint64_t i) -> C {
    if constexpr (std::is_same_v<C, float>) {
      return in_io.ld_f32(in, i);
    } else {
      return in_io.ld_f64(in, i);
    }
  };
  auto st = [&](uint64_t i, C v) {
    if constexpr (std::is_same_v<C, float>) {
      out_io.st_f32(out, i, v);
    } else {
      out_io.st_f64(out, i, v);
    }
  };
  parallel_ranges(s.outer * s.inner, s.len * 4, [&](uint64_t begin, uint64_t end) {
    std::vector<C> e(s.len);
    for (uint64_t r = begin; r < end; ++r) {
      const uint64_t base = (r / s.inner) * s.len * s.inner + r % s.inner;
      C m = -std::numeric_limits<C>::infinity();
      for (uint64_t k = 0; k < s.len && !std::isnan(m); ++k) {
        const C x = ld(base + k * s.inner);
        if (x > m || std::isnan(x)) m = x;
      }
      C sum = 0;
      for (uint64_t k = 0; k < s.len; ++k) {
        e[k] = ld(base + k * s.inner) - m;
        sum += std::exp(e[k]);
      }
      if constexpr (Log) {
        const C log_sum = std::log(sum);
        for (uint64_t k = 0; k < s.len; ++k) st(base + k * s.inner, e[k] - log_sum);
      } else {
        for (uint64_t k = 0; k < s.len; ++k) st(base + k * s.inner, std::exp(e[k]) / sum);
      }
    }
  });
}

template <bool Log>
oi_status* softmax_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const uint32_t axis = call_axis(*call, Log ? "log_softmax" : "softmax", -1);
  if (call->inputs[0].dtype == OI_DTYPE_F64) {
    softmax_slices<double, Log>(*call, axis);
  } else {
    softmax_slices<float, Log>(*call, axis);
  }
  OI_ABI_CATCH(call->host)
}

}  // namespace oi::cpu
