// Reductions over axes (sum/prod/mean/max/min) and along one axis (argmax/argmin), for every
// dtype through the type-erased element table. Each output element folds its inputs in
// row-major order, so results do not depend on threading. One implementation serves all the
// *_axis kernels; kernels/<op>_axis.cpp register it.
#pragma once

#include "kernel_registry.hpp"

namespace oi::cpu {

enum class ReduceKind { Sum, Prod, Mean, Max, Min, ArgMax, ArgMin };

oi_status* run_reduction(const oi_kernel_call* call, ReduceKind kind);

template <ReduceKind Kind>
oi_status* reduction_kernel(const oi_kernel_call* call) {
  return run_reduction(call, Kind);
}

// Registers the kernel for the catalog's reduction dtypes (floats, signed, unsigned); with
// `accumulate` also for every acc= pair. `out` fixes the output dtype (argmax: i64).
void add_reduction_kernels(KernelList& list, const char* op, oi_kernel_fn fn, bool accumulate,
                           uint32_t out = 0);

}  // namespace oi::cpu
