#define BOOST_TEST_MODULE dtype
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "openinfer/dtype.hpp"

using namespace oi;

namespace {

// The value-type table of oinf.md, written out by hand.
struct Expected {
  std::string_view name;
  uint32_t tag;
  uint32_t bits;
  DTypeClass cls;
};
const std::vector<Expected> kTable = {
    {"f8", 17, 8, DTypeClass::Float},      {"bf16", 16, 16, DTypeClass::Float},
    {"f16", 9, 16, DTypeClass::Float},     {"f32", 10, 32, DTypeClass::Float},
    {"f64", 11, 64, DTypeClass::Float},    {"i1", 20, 1, DTypeClass::Signed},
    {"i2", 19, 2, DTypeClass::Signed},     {"i4", 18, 4, DTypeClass::Signed},
    {"i8", 1, 8, DTypeClass::Signed},      {"i16", 2, 16, DTypeClass::Signed},
    {"i32", 3, 32, DTypeClass::Signed},    {"i64", 4, 64, DTypeClass::Signed},
    {"u1", 23, 1, DTypeClass::Unsigned},   {"u2", 22, 2, DTypeClass::Unsigned},
    {"u4", 21, 4, DTypeClass::Unsigned},   {"u8", 5, 8, DTypeClass::Unsigned},
    {"u16", 6, 16, DTypeClass::Unsigned},  {"u32", 7, 32, DTypeClass::Unsigned},
    {"u64", 8, 64, DTypeClass::Unsigned},  {"t1", 25, 1, DTypeClass::Ternary},
    {"t2", 24, 2, DTypeClass::Ternary},    {"bool", 12, 8, DTypeClass::Bool},
    {"bitset", 13, 8, DTypeClass::Bitset},
};

}  // namespace

BOOST_AUTO_TEST_CASE(table_matches_oinf_md) {
  const auto all = all_dtypes();
  BOOST_TEST_REQUIRE(all.size() == kTable.size());
  for (size_t i = 0; i < kTable.size(); ++i) {
    const Expected& e = kTable[i];
    BOOST_TEST_CONTEXT(e.name) {
      BOOST_TEST(static_cast<uint32_t>(all[i]) == e.tag);
      BOOST_TEST(dtype_name(all[i]) == e.name);
      BOOST_TEST(dtype_bits(all[i]) == e.bits);
      BOOST_TEST((dtype_class(all[i]) == e.cls));
      BOOST_TEST((dtype_from_name(e.name) == all[i]));
      BOOST_TEST((dtype_from_tag(e.tag) == all[i]));
      BOOST_TEST(is_packed(all[i]) == (e.bits < 8));
    }
  }
}

BOOST_AUTO_TEST_CASE(unknown_names_and_tags) {
  BOOST_TEST(!dtype_from_name("string").has_value());
  BOOST_TEST(!dtype_from_name("boolean").has_value());
  BOOST_TEST(!dtype_from_name("F32").has_value());
  BOOST_TEST(!dtype_from_name("").has_value());
  for (uint32_t tag : {0u, 14u, 15u, 26u, 1000u, 0xFFFFFFFFu})
    BOOST_TEST(!dtype_from_tag(tag).has_value(), "tag " << tag);
}

BOOST_AUTO_TEST_CASE(storage_bytes_rounds_up_and_detects_overflow) {
  BOOST_TEST(*storage_bytes(DType::i1, 0) == 0u);
  BOOST_TEST(*storage_bytes(DType::i1, 8) == 1u);
  BOOST_TEST(*storage_bytes(DType::i1, 9) == 2u);
  BOOST_TEST(*storage_bytes(DType::t2, 5) == 2u);
  BOOST_TEST(*storage_bytes(DType::u4, 3) == 2u);
  BOOST_TEST(*storage_bytes(DType::f16, 3) == 6u);
  BOOST_TEST(*storage_bytes(DType::boolean, 5) == 5u);
  BOOST_TEST(*storage_bytes(DType::u64, (uint64_t{1} << 61) - 1) ==
             std::numeric_limits<uint64_t>::max() - 7);  // 2^64 - 8
  BOOST_TEST(!storage_bytes(DType::u64, uint64_t{1} << 61).has_value());
  BOOST_TEST(!storage_bytes(DType::f32, std::numeric_limits<uint64_t>::max()).has_value());
  // Packed sizes never overflow: 2^64 - 1 one-bit elements fit in 2^61 bytes.
  BOOST_TEST(*storage_bytes(DType::u1, std::numeric_limits<uint64_t>::max()) == uint64_t{1} << 61);
}

BOOST_AUTO_TEST_CASE(checked_numel_multiplies_and_detects_overflow) {
  const uint64_t big = uint64_t{1} << 32;
  BOOST_TEST(*checked_numel(std::vector<uint64_t>{}) == 1u);  // rank 0
  BOOST_TEST(*checked_numel(std::vector<uint64_t>{2, 3, 4}) == 24u);
  BOOST_TEST(*checked_numel(std::vector<uint64_t>{2, 0, 4}) == 0u);
  BOOST_TEST(*checked_numel(std::vector<uint64_t>{big, big / 2}) == uint64_t{1} << 63);
  BOOST_TEST(!checked_numel(std::vector<uint64_t>{big, big}).has_value());
  BOOST_TEST(!checked_numel(std::vector<uint64_t>{0, big, big}).has_value());
}

BOOST_AUTO_TEST_CASE(integer_ranges) {
  struct Range {
    DType t;
    int64_t lo;
    uint64_t hi;
  };
  const Range ranges[] = {
      {DType::i1, -1, 0},
      {DType::i2, -2, 1},
      {DType::i4, -8, 7},
      {DType::i8, -128, 127},
      {DType::i16, -32768, 32767},
      {DType::i32, -2147483648LL, 2147483647},
      {DType::i64, std::numeric_limits<int64_t>::min(), 9223372036854775807ULL},
      {DType::u1, 0, 1},
      {DType::u2, 0, 3},
      {DType::u4, 0, 15},
      {DType::u8, 0, 255},
      {DType::u16, 0, 65535},
      {DType::u32, 0, 4294967295ULL},
      {DType::u64, 0, std::numeric_limits<uint64_t>::max()},
      {DType::t1, -1, 1},
      {DType::t2, -1, 1},
      {DType::boolean, 0, 1},
      {DType::bitset, 0, 255},
  };
  for (const Range& r : ranges) {
    BOOST_TEST(int_min(r.t) == r.lo, dtype_name(r.t));
    BOOST_TEST(int_max(r.t) == r.hi, dtype_name(r.t));
  }
}
