// argmin_axis: index of the min along `axis` as i64; ties pick the first (select_first) or last
// index, a NaN its first index (ops.md). The fold lives in reduce.cpp.
#include "../reduce.hpp"

namespace oi::cpu {
namespace {

void register_argmin_axis(KernelList& list) {
  add_reduction_kernels(list, "argmin_axis", &reduction_kernel<ReduceKind::ArgMin>, false,
                        OI_DTYPE_I64);
}

const KernelRegistration registration(register_argmin_axis);

}  // namespace
}  // namespace oi::cpu
