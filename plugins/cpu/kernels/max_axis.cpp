// max_axis: max over `axes`; NaN propagates, -0.0 < +0.0; an empty axis is an error (ops.md). The
// fold lives in reduce.cpp.
#include "../reduce.hpp"

namespace oi::cpu {
namespace {

void register_max_axis(KernelList& list) {
  add_reduction_kernels(list, "max_axis", &reduction_kernel<ReduceKind::Max>, false);
}

const KernelRegistration registration(register_max_axis);

}  // namespace
}  // namespace oi::cpu
