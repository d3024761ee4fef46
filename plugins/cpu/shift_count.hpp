// shl/shr's `bits`, checked here as well as by the host (validator and simulator): a count
// outside 0..width-1 would be undefined behaviour in the widened 64-bit shift.
#pragma once

#include "openinfer/shift_bits.hpp"

#include <string>

#include "cpu_status.hpp"
#include "dtype_io.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::cpu {

inline int64_t checked_shift_bits(const oi_kernel_call& call, const char* op) {
  const int64_t bits = abi::setting_int(call, "bits", 0);
  const int64_t width = elem_io(call.inputs[0].dtype).bits;
  if (!oi::shift_bits_in_range(bits, width))
    fail(OI_STATUS_INVALID_ARGUMENT, oi::shift_bits_message(op, std::to_string(bits), width, ""));
  return bits;
}

}  // namespace oi::cpu
