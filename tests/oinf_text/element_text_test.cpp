// Element values of the text form: float fixtures from gen_text_fixtures.py (shortest
// round-trip decimals), integers and the other dtypes by hand, and bad inputs.
#define BOOST_TEST_MODULE oinf_text_element_text
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/oinf_text.hpp"

using oi::DType;
using oi::format_element;
using oi::parse_element;

namespace {

std::string error_of(DType dtype, const std::string& token) {
  try {
    parse_element(dtype, token);
  } catch (const oi::Error& e) {
    BOOST_TEST((e.kind() == oi::ErrorKind::Input));
    return e.what();
  }
  return "<no error>";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(float_fixture_formats_and_reads_back) {
  std::ifstream in(OPENINFER_SOURCE_DIR "/tests/oinf_text/fixtures/float_cases.txt");
  BOOST_REQUIRE(in);
  std::string line;
  size_t checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string dtype_name, hex, text;
    fields >> dtype_name >> hex >> text;
    const DType dtype = *oi::dtype_from_name(dtype_name);
    const uint64_t raw = std::stoull(hex, nullptr, 16);
    BOOST_TEST_INFO(line);
    BOOST_TEST(format_element(dtype, raw) == text);
    BOOST_TEST(parse_element(dtype, text) == raw);
    ++checked;
  }
  BOOST_TEST(checked > 10000u);
}

BOOST_AUTO_TEST_CASE(canonical_nans) {
  BOOST_TEST(oi::canonical_nan_bits(DType::f8) == 0x7Eu);
  BOOST_TEST(oi::canonical_nan_bits(DType::f16) == 0x7E00u);
  BOOST_TEST(oi::canonical_nan_bits(DType::bf16) == 0x7FC0u);
  BOOST_TEST(oi::canonical_nan_bits(DType::f32) == 0x7FC00000u);
  BOOST_TEST(oi::canonical_nan_bits(DType::f64) == 0x7FF8000000000000u);
}

BOOST_AUTO_TEST_CASE(decimals_round_to_nearest_even) {
  // f16 spacing at 2048 is 2: 2049 is a tie and goes to the even mantissa (2048), 2051 to 2052.
  BOOST_TEST(parse_element(DType::f16, "2049") == 0x6800u);
  BOOST_TEST(parse_element(DType::f16, "2051") == 0x6802u);
  // f32: 16777217 = 2^24 + 1 ties down to 2^24; 0.1 is 0x3dcccccd.
  BOOST_TEST(parse_element(DType::f32, "16777217") == 0x4B800000u);
  BOOST_TEST(parse_element(DType::f32, "0.1") == 0x3DCCCCCDu);
  BOOST_TEST(parse_element(DType::f32, "1e-3") == 0x3A83126Fu);
  // Overflow rounds to infinity as every conversion does; 65520 is f16's first value that does.
  BOOST_TEST(parse_element(DType::f16, "65519") == 0x7BFFu);
  BOOST_TEST(parse_element(DType::f16, "65520") == 0x7C00u);
  BOOST_TEST(parse_element(DType::f64, "-1e400") == 0xFFF0000000000000u);
  BOOST_TEST(parse_element(DType::f8, "+inf") == 0x7Cu);
  BOOST_TEST(parse_element(DType::f64, ".5") == 0x3FE0000000000000u);
  BOOST_TEST(parse_element(DType::f64, "-0") == 0x8000000000000000u);
}

BOOST_AUTO_TEST_CASE(integers_and_packed_types) {
  BOOST_TEST(format_element(DType::i4, 0xF) == "-1");
  BOOST_TEST(format_element(DType::i4, 0x8) == "-8");
  BOOST_TEST(format_element(DType::i2, 0x2) == "-2");
  BOOST_TEST(format_element(DType::i1, 0x1) == "-1");
  BOOST_TEST(format_element(DType::i64, 0x8000000000000000u) == "-9223372036854775808");
  BOOST_TEST(format_element(DType::u64, ~uint64_t{0}) == "18446744073709551615");
  BOOST_TEST(format_element(DType::t1, 0) == "-1");
  BOOST_TEST(format_element(DType::t1, 1) == "1");
  BOOST_TEST(format_element(DType::t2, 3) == "-1");
  BOOST_TEST(format_element(DType::boolean, 1) == "true");
  BOOST_TEST(format_element(DType::bitset, 200) == "200");

  BOOST_TEST(parse_element(DType::i4, "-8") == 0x8u);
  BOOST_TEST(parse_element(DType::i4, "7") == 0x7u);
  BOOST_TEST(parse_element(DType::i64, "-9223372036854775808") == 0x8000000000000000u);
  BOOST_TEST(parse_element(DType::u64, "18446744073709551615") == ~uint64_t{0});
  BOOST_TEST(parse_element(DType::i8, "+5") == 5u);
  BOOST_TEST(parse_element(DType::t1, "-1") == 0u);
  BOOST_TEST(parse_element(DType::t2, "-1") == 3u);
  BOOST_TEST(parse_element(DType::boolean, "false") == 0u);
  BOOST_TEST(parse_element(DType::bitset, "255") == 255u);
  BOOST_TEST(parse_element(DType::u1, "1") == 1u);
  BOOST_TEST(parse_element(DType::u8, "-0") == 0u);
}

BOOST_AUTO_TEST_CASE(bad_values_are_named) {
  BOOST_TEST(contains(error_of(DType::u8, "256"), "value 256 does not fit u8 (0..255)"));
  BOOST_TEST(contains(error_of(DType::u8, "-1"), "does not fit u8"));
  BOOST_TEST(contains(error_of(DType::i4, "8"), "does not fit i4 (-8..7)"));
  BOOST_TEST(contains(error_of(DType::i4, "-9"), "does not fit i4"));
  BOOST_TEST(contains(error_of(DType::i64, "9223372036854775808"), "does not fit i64"));
  BOOST_TEST(contains(error_of(DType::i64, "-9223372036854775809"), "does not fit i64"));
  BOOST_TEST(contains(error_of(DType::u64, "18446744073709551616"), "does not fit u64"));
  BOOST_TEST(contains(error_of(DType::t1, "0"), "does not fit t1 (-1 or 1)"));
  BOOST_TEST(contains(error_of(DType::t2, "2"), "does not fit t2"));
  BOOST_TEST(contains(error_of(DType::bitset, "256"), "does not fit bitset"));
  BOOST_TEST(contains(error_of(DType::i32, "1.5"), "expected an integer for i32, got '1.5'"));
  BOOST_TEST(contains(error_of(DType::u8, "x"), "expected an integer for u8"));
  BOOST_TEST(contains(error_of(DType::u8, "--0"), "expected an integer"));
  BOOST_TEST(contains(error_of(DType::u8, "-"), "expected an integer"));
  BOOST_TEST(contains(error_of(DType::boolean, "1"), "expected true or false for bool"));
  BOOST_TEST(contains(error_of(DType::f32, "abc"), "expected a number for f32, got 'abc'"));
  BOOST_TEST(contains(error_of(DType::f32, "0x1p3"), "expected a number for f32"));
  BOOST_TEST(contains(error_of(DType::f32, "1e"), "expected a number"));
  BOOST_TEST(contains(error_of(DType::f32, "infinity"), "expected a number"));
  BOOST_TEST(contains(error_of(DType::f16, "nan(0x7c00)"), "is not a NaN bit pattern of f16"));
  BOOST_TEST(contains(error_of(DType::f16, "nan(0x17e00)"), "do not fit f16"));
  BOOST_TEST(contains(error_of(DType::f16, "nan(7e01)"), "malformed NaN"));
  BOOST_TEST(contains(error_of(DType::f8, "nan(0x)"), "malformed NaN"));
}
