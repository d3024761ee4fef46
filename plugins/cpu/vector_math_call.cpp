#include "vector_math_call.hpp"

#include <algorithm>

#include "dtype_io.hpp"
#include "element_types.hpp"
#include "openinfer/plugin_abi.hpp"
#include "parallel.hpp"

namespace oi::cpu {

bool run_unary_span(const oi_kernel_call& call, vmath::UnarySpan span) {
  const uint32_t t = call.inputs[0].dtype;
  const uint64_t n = abi::element_count(call.outputs[0]);
  if (call.outputs[0].dtype != t || abi::element_count(call.inputs[0]) != n) return false;
  const std::byte* in = input_data(call, 0);
  std::byte* out = output_data(call, 0);
  if (t == OI_DTYPE_F32) {
    const auto* x = reinterpret_cast<const float*>(in);
    auto* y = reinterpret_cast<float*>(out);
    parallel_ranges(n, kVectorMathCost,
                    [&](uint64_t begin, uint64_t end) { span(x + begin, y + begin, end - begin); });
    return true;
  }
  if (t != OI_DTYPE_F16 && t != OI_DTYPE_BF16 && t != OI_DTYPE_F8) return false;
  const ElemIO& io = elem_io(t);
  parallel_ranges(n, kVectorMathCost, [&](uint64_t begin, uint64_t end) {
    float block[kVectorMathBlock];
    for (uint64_t b = begin; b < end; b += kVectorMathBlock) {
      const uint64_t m = std::min(kVectorMathBlock, end - b);
      for (uint64_t i = 0; i < m; ++i) block[i] = io.ld_f32(in, b + i);
      span(block, block, m);
      for (uint64_t i = 0; i < m; ++i) io.st_f32(out, b + i, block[i]);
    }
  });
  return true;
}

bool run_pow_span(const oi_kernel_call& call, vmath::PowSpan span) {
  const uint64_t n = abi::element_count(call.outputs[0]);
  const uint64_t nb = abi::element_count(call.inputs[1]);
  if (call.inputs[0].dtype != OI_DTYPE_F32 || call.inputs[1].dtype != OI_DTYPE_F32 ||
      call.outputs[0].dtype != OI_DTYPE_F32 || abi::element_count(call.inputs[0]) != n ||
      (nb != n && nb != 1)) {
    return false;
  }
  const auto* a = reinterpret_cast<const float*>(input_data(call, 0));
  const auto* b = reinterpret_cast<const float*>(input_data(call, 1));
  auto* y = reinterpret_cast<float*>(output_data(call, 0));
  const uint64_t b_step = nb == n ? 1 : 0;
  parallel_ranges(n, kVectorMathCost, [&](uint64_t begin, uint64_t end) {
    span(a + begin, b + begin * b_step, b_step, y + begin, end - begin);
  });
  return true;
}

}  // namespace oi::cpu
