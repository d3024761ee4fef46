// Axis helpers of the kernels that work along one axis (softmax, concat, gather, iota).
#pragma once

#include <cstdint>
#include <string>

#include "cpu_status.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::cpu {

// `axis` of a call made non-negative; a value outside [-rank, rank) is an error naming the op.
inline uint32_t call_axis(const oi_kernel_call& call, const char* op, int64_t fallback) {
  const int64_t axis = abi::setting_int(call, "axis", fallback);
  const auto rank = static_cast<int64_t>(call.inputs[0].rank);
  if (axis < -rank || axis >= rank)
    fail(OI_STATUS_INVALID_ARGUMENT, std::string(op) + ": axis " + std::to_string(axis) +
                                         " is out of range for rank " + std::to_string(rank));
  return static_cast<uint32_t>(axis < 0 ? axis + rank : axis);
}

// Products of the dims before, at and after `axis`.
struct AxisSplit {
  uint64_t outer = 1, len = 1, inner = 1;
  AxisSplit(const oi_tensor_desc& t, uint32_t axis) {
    for (uint32_t k = 0; k < t.rank; ++k) (k < axis ? outer : k == axis ? len : inner) *= t.dims[k];
  }
};

}  // namespace oi::cpu
