// min_axis: min over `axes`; NaN propagates, -0.0 < +0.0; an empty axis is an error (ops.md). The
// fold lives in reduce.cpp.
#include "../reduce.hpp"

namespace oi::cpu {
namespace {

void register_min_axis(KernelList& list) {
  add_reduction_kernels(list, "min_axis", &reduction_kernel<ReduceKind::Min>, false);
}

const KernelRegistration registration(register_min_axis);

}  // namespace
}  // namespace oi::cpu
