// argmax_axis: index of the max along `axis` as i64; ties pick the first (select_first) or last
// index, a NaN its first index (ops.md). The fold lives in reduce.cpp.
#include "../reduce.hpp"

namespace oi::cpu {
namespace {

void register_argmax_axis(KernelList& list) {
  add_reduction_kernels(list, "argmax_axis", &reduction_kernel<ReduceKind::ArgMax>, false,
                        OI_DTYPE_I64);
}

const KernelRegistration registration(register_argmax_axis);

}  // namespace
}  // namespace oi::cpu
