#include "openinfer/dtype.hpp"

#include <array>
#include <limits>

namespace oi {
namespace {

// One dtype a line.
// clang-format off
constexpr std::array<DTypeInfo, 23> kInfos{{
    {DType::f8, "f8", 8, DTypeClass::Float},
    {DType::bf16, "bf16", 16, DTypeClass::Float},
    {DType::f16, "f16", 16, DTypeClass::Float},
    {DType::f32, "f32", 32, DTypeClass::Float},
    {DType::f64, "f64", 64, DTypeClass::Float},
    {DType::i1, "i1", 1, DTypeClass::Signed},
    {DType::i2, "i2", 2, DTypeClass::Signed},
    {DType::i4, "i4", 4, DTypeClass::Signed},
    {DType::i8, "i8", 8, DTypeClass::Signed},
    {DType::i16, "i16", 16, DTypeClass::Signed},
    {DType::i32, "i32", 32, DTypeClass::Signed},
    {DType::i64, "i64", 64, DTypeClass::Signed},
    {DType::u1, "u1", 1, DTypeClass::Unsigned},
    {DType::u2, "u2", 2, DTypeClass::Unsigned},
    {DType::u4, "u4", 4, DTypeClass::Unsigned},
    {DType::u8, "u8", 8, DTypeClass::Unsigned},
    {DType::u16, "u16", 16, DTypeClass::Unsigned},
    {DType::u32, "u32", 32, DTypeClass::Unsigned},
    {DType::u64, "u64", 64, DTypeClass::Unsigned},
    {DType::t1, "t1", 1, DTypeClass::Ternary},
    {DType::t2, "t2", 2, DTypeClass::Ternary},
    {DType::boolean, "bool", 8, DTypeClass::Bool},
    {DType::bitset, "bitset", 8, DTypeClass::Bitset},
}};
// clang-format on

constexpr std::array<DType, 23> kAll = [] {
  std::array<DType, 23> a{};
  for (size_t i = 0; i < kInfos.size(); ++i) a[i] = kInfos[i].dtype;
  return a;
}();

// Tag -> index into kInfos; tags run 1..25 with 14 and 15 (string, ndarray) not dtypes.
constexpr std::array<int, 26> kByTag = [] {
  std::array<int, 26> t{};
  for (auto& v : t) v = -1;
  for (size_t i = 0; i < kInfos.size(); ++i) t[static_cast<uint32_t>(kInfos[i].dtype)] = int(i);
  return t;
}();

}  // namespace

const DTypeInfo& dtype_info(DType t) {
  auto tag = static_cast<uint32_t>(t);
  if (tag >= kByTag.size() || kByTag[tag] < 0) return kInfos[3];  // unreachable for valid enums
  return kInfos[kByTag[tag]];
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& i : kInfos)
    if (i.name == name) return i.dtype;
  return std::nullopt;
}

std::optional<DType> dtype_from_tag(uint32_t tag) {
  if (tag >= kByTag.size() || kByTag[tag] < 0) return std::nullopt;
  return kInfos[kByTag[tag]].dtype;
}

std::span<const DType> all_dtypes() {
  return kAll;
}

std::optional<uint64_t> storage_bytes(DType t, uint64_t numel) {
  const uint64_t bits = dtype_bits(t);
  if (bits >= 8) {
    const uint64_t bytes = bits / 8;
    if (numel > std::numeric_limits<uint64_t>::max() / bytes) return std::nullopt;
    return numel * bytes;
  }
  const uint64_t per_byte = 8 / bits;
  return numel / per_byte + (numel % per_byte != 0 ? 1 : 0);
}

std::optional<uint64_t> checked_numel(std::span<const uint64_t> dims) {
  uint64_t n = 1;  // product of the nonzero dims
  bool zero = false;
  bool overflow = false;
  for (uint64_t d : dims) {
    if (d == 0) {
      zero = true;
    } else if (!overflow) {
      if (n > std::numeric_limits<uint64_t>::max() / d)
        overflow = true;
      else
        n *= d;
    }
  }
  // An empty dim makes the product 0 even if other dims are huge: still reject an overflowing
  // header, since no real tensor can declare it.
  if (overflow) return std::nullopt;
  return zero ? 0 : n;
}

int64_t int_min(DType t) {
  switch (dtype_class(t)) {
    case DTypeClass::Signed:
      return dtype_bits(t) == 64 ? std::numeric_limits<int64_t>::min()
                                 : -(int64_t{1} << (dtype_bits(t) - 1));
    case DTypeClass::Ternary:
      return -1;
    default:
      return 0;
  }
}

uint64_t int_max(DType t) {
  const uint32_t bits = dtype_bits(t);
  switch (dtype_class(t)) {
    case DTypeClass::Signed:
      return (uint64_t{1} << (bits - 1)) - 1;
    case DTypeClass::Unsigned:
    case DTypeClass::Bitset:
      return bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
    case DTypeClass::Bool:
    case DTypeClass::Ternary:
      return 1;
    case DTypeClass::Float:
      return 0;
  }
  return 0;
}

}  // namespace oi
