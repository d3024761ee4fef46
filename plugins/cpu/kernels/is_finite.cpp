// is_finite: one bool scalar, true iff every element is finite (ops.md).
#include <atomic>
#include <cmath>

#include "../generic_elementwise.hpp"
#include "../kernel_registry.hpp"
#include "../unary_elementwise.hpp"

namespace oi::cpu {
namespace {

template <class T>
oi_status* is_finite_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const std::byte* in = input_data(*call, 0);
  std::atomic<bool> all_finite{true};
  parallel_ranges(abi::element_count(call->inputs[0]), 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end && all_finite.load(std::memory_order_relaxed); ++i) {
      if (!std::isfinite(load<T>(in, i))) all_finite.store(false, std::memory_order_relaxed);
    }
  });
  store<bool>(output_data(*call, 0), 0, all_finite.load());
  OI_ABI_CATCH(call->host)
}

// f8/bf16/f16: widened exactly to f32 through the dtype table.
oi_status* narrow_is_finite_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const ElemIO& io = elem_io(call->inputs[0].dtype);
  const std::byte* in = input_data(*call, 0);
  bool all_finite = true;
  const uint64_t n = abi::element_count(call->inputs[0]);
  for (uint64_t i = 0; i < n && all_finite; ++i) all_finite = std::isfinite(io.ld_f32(in, i));
  store<bool>(output_data(*call, 0), 0, all_finite);
  OI_ABI_CATCH(call->host)
}

void register_is_finite(KernelList& list) {
  for (uint32_t t : kNarrowFloats) {
    list.add("is_finite", {t}, OI_DTYPE_BOOL, OI_KERNEL_MODE_NORMAL, &narrow_is_finite_kernel);
  }
  list.add("is_finite", {OI_DTYPE_F32}, OI_DTYPE_BOOL, OI_KERNEL_MODE_NORMAL,
           &is_finite_kernel<float>);
  list.add("is_finite", {OI_DTYPE_F64}, OI_DTYPE_BOOL, OI_KERNEL_MODE_NORMAL,
           &is_finite_kernel<double>);
}

const KernelRegistration registration(register_is_finite);

}  // namespace
}  // namespace oi::cpu
