// prod_axis: product over `axes` with keepdims; 1 over an empty axis (ops.md). The fold lives in
// reduce.cpp.
#include "../reduce.hpp"

namespace oi::cpu {
namespace {

void register_prod_axis(KernelList& list) {
  add_reduction_kernels(list, "prod_axis", &reduction_kernel<ReduceKind::Prod>, true);
}

const KernelRegistration registration(register_prod_axis);

}  // namespace
}  // namespace oi::cpu
