// sum_axis: sum over `axes` (absent: all; []: none) with keepdims; 0 over an empty axis (ops.md).
// The fold lives in reduce.cpp.
#include "../reduce.hpp"

namespace oi::cpu {
namespace {

void register_sum_axis(KernelList& list) {
  add_reduction_kernels(list, "sum_axis", &reduction_kernel<ReduceKind::Sum>, true);
}

const KernelRegistration registration(register_sum_axis);

}  // namespace
}  // namespace oi::cpu
