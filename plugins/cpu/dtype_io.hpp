// Type-erased element access for the generic kernels: every dtype of the catalog loads an
// element as f32, f64 or a 64-bit integer and stores one back (narrow floats rounded once to
// nearest even, integers wrapped at the dtype's width). Packed dtypes are read and written in
// place, LSB first (oinf.md), so a kernel never widens a whole tensor. Generic kernels run one
// instantiation per compute domain instead of one per dtype, which keeps compile time small.
#pragma once

#include <cstddef>
#include <cstdint>

#include "openinfer/plugin_abi.h"

namespace oi::cpu {

// How a kernel computes: narrow floats and f32 in f32, f64 in f64, integers/bool in int64.
enum class Domain { F32, F64, Int };

struct ElemIO {
  uint32_t tag;
  uint32_t bits;  // element width: 1, 2, 4, 8, 16, 32 or 64
  bool is_float, is_signed, is_bool, packed;
  float (*ld_f32)(const std::byte*, uint64_t);  // floats exactly (f64 rounds); ints convert
  double (*ld_f64)(const std::byte*, uint64_t);
  int64_t (*ld_i)(const std::byte*, uint64_t);  // sign- or zero-extended; bool 0/1
  void (*st_f32)(std::byte*, uint64_t, float);  // round once to the dtype
  void (*st_f64)(std::byte*, uint64_t, double);
  void (*st_i)(std::byte*, uint64_t, int64_t);      // low `bits` bits; bool stores v != 0
  uint64_t (*ld_bits)(const std::byte*, uint64_t);  // the element's raw bits
  void (*st_bits)(std::byte*, uint64_t, uint64_t);

  Domain domain() const {
    if (!is_float) return Domain::Int;
    return tag == OI_DTYPE_F64 ? Domain::F64 : Domain::F32;
  }
  int64_t min_value() const { return is_signed ? -(int64_t{1} << (bits - 1)) : 0; }
  // The largest value as its 64-bit pattern (u64's max is all ones).
  uint64_t max_bits() const {
    if (is_bool) return 1;
    uint64_t w = is_signed ? bits - 1 : bits;
    return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  }
};

// The table entry of a dtype tag; throws for t1/t2 and unknown tags.
const ElemIO& elem_io(uint32_t tag);

// Packed outputs share bytes between neighbours: parallel chunks start on multiples of this.
inline constexpr uint64_t kPackedAlign = 8;

}  // namespace oi::cpu
