// mean_axis: sum / count over `axes`; integers sum exactly (at the acc= width when given) and
// truncate; an empty axis gives NaN for floats, 0 for integers (ops.md). The fold lives in
// reduce.cpp.
#include "../reduce.hpp"

namespace oi::cpu {
namespace {

void register_mean_axis(KernelList& list) {
  add_reduction_kernels(list, "mean_axis", &reduction_kernel<ReduceKind::Mean>, true);
}

const KernelRegistration registration(register_mean_axis);

}  // namespace
}  // namespace oi::cpu
