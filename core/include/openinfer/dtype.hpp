// The 23 element types of the OINF format (oinf.md): name <-> tag <-> bit width.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace oi {

// Values are the OINF tags, so a DType converts to its tag with a cast.
// clang-format off
enum class DType : uint32_t {
  i8 = 1, i16 = 2, i32 = 3, i64 = 4,
  u8 = 5, u16 = 6, u32 = 7, u64 = 8,
  f16 = 9, f32 = 10, f64 = 11,
  boolean = 12, bitset = 13,
  bf16 = 16, f8 = 17,
  i4 = 18, i2 = 19, i1 = 20,
  u4 = 21, u2 = 22, u1 = 23,
  t2 = 24, t1 = 25,
};
// clang-format on

enum class DTypeClass { Float, Signed, Unsigned, Bool, Bitset, Ternary };

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // as written in the DSL and the text form ("bool" for boolean)
  uint32_t bits;          // storage bits per element
  DTypeClass cls;
};

const DTypeInfo& dtype_info(DType t);
inline std::string_view dtype_name(DType t) {
  return dtype_info(t).name;
}
inline uint32_t dtype_bits(DType t) {
  return dtype_info(t).bits;
}
inline DTypeClass dtype_class(DType t) {
  return dtype_info(t).cls;
}
inline bool is_float(DType t) {
  return dtype_class(t) == DTypeClass::Float;
}
inline bool is_signed_int(DType t) {
  return dtype_class(t) == DTypeClass::Signed;
}
inline bool is_unsigned_int(DType t) {
  return dtype_class(t) == DTypeClass::Unsigned;
}
inline bool is_integer(DType t) {
  return is_signed_int(t) || is_unsigned_int(t);
}
// Fewer than 8 bits per element: several elements share a byte, LSB first.
inline bool is_packed(DType t) {
  return dtype_bits(t) < 8;
}

std::optional<DType> dtype_from_name(std::string_view name);
std::optional<DType> dtype_from_tag(uint32_t tag);

// All 23 types, in the order of oinf.md's list (f8 bf16 f16 f32 f64 i1 ... bool bitset).
std::span<const DType> all_dtypes();

// ceil(numel * bits / 8), or nullopt when that overflows 64 bits.
std::optional<uint64_t> storage_bytes(DType t, uint64_t numel);

// Product of dims (1 for rank 0), or nullopt on 64-bit overflow.
std::optional<uint64_t> checked_numel(std::span<const uint64_t> dims);

// Smallest and largest integer value of an integer, bool, bitset or ternary type.
int64_t int_min(DType t);
uint64_t int_max(DType t);

}  // namespace oi
