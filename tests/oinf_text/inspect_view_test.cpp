// The `inspect` view: sections in order, sizevar names in dims, shortened long tensors,
// statistics (expected values computed by hand), declarations.
#define BOOST_TEST_MODULE oinf_text_inspect_view
#include <boost/test/unit_test.hpp>

#include <string>

#include "openinfer/oinf_text.hpp"

namespace {

std::string inspect(const std::string& text) {
  return oi::inspect_oinf(oi::Model::from_bytes(oi::parse_oinf_text(text, "t.txt").to_bytes()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(view_of_a_small_package) {
  const std::string text =
      "B := 12\n"
      "C := 3\n"
      "D := 3\n"
      "@mode: str = \"clamp_up\"\n"
      "@mask: bitset[3] = 0b101\n"
      "@lut: ndarray i8[B] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }\n"
      "a: f32[B] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }\n"
      "b: bool[2] = { true, false }\n"
      "c: u8[3] = { 1, 2, 3 }\n"
      "n: f16[3] = { nan, 1, 3 }\n"
      "w: i64[2] = { -9223372036854775808, 9223372036854775807 }\n"
      "s: f64 = 2.5\n"
      "y: i16[B]\n";
  // std of 1..12 = sqrt((12^2 - 1) / 12) = 3.4520525...; of {1, 2, 3} = sqrt(2/3) = 0.8164966;
  // of {-2^63, 2^63 - 1} (as doubles: +-2^63) = 2^63 = 9.223372e+18.
  const std::string expected =
      "B := 12\n"
      "C := 3\n"
      "D := 3\n"
      "lut: ndarray i8[B] = { 1, 2, 3, 4, 5, ..., 8, 9, 10, 11, 12 }\n"
      "mask: bitset[3] = 0b101\n"
      "mode: str = \"clamp_up\"\n"
      "a: f32[B] = { 1.0, 2.0, 3.0, 4.0, 5.0, ..., 8.0, 9.0, 10.0, 11.0, 12.0 }\n"
      "- [nbytes: 48, min: 1.0, max: 12.0, mean: 6.5, std: 3.452053]\n"
      "b: bool[2] = { true, false }\n"
      "- [nbytes: 2]\n"
      "c: u8[3] = { 1, 2, 3 }\n"
      "- [nbytes: 3, min: 1, max: 3, mean: 2, std: 0.8164966]\n"
      "n: f16[3] = { nan, 1.0, 3.0 }\n"
      "- [nbytes: 6, min: 1.0, max: 3.0, mean: 2, std: 1, nans: 1]\n"
      "s: f64 = 2.5\n"
      "w: i64[2] = { -9223372036854775808, 9223372036854775807 }\n"
      "- [nbytes: 16, min: -9223372036854775808, max: 9223372036854775807, mean: 0, std: "
      "9.223372e+18]\n"
      "y: i16[B] -- uninitialized\n";
  BOOST_TEST(inspect(text) == expected);
}

BOOST_AUTO_TEST_CASE(empty_and_all_nan_tensors) {
  BOOST_TEST(inspect("e: f32[0] = { }\nn: f32[2] = { nan, nan(0x7fc00001) }\n") ==
             "e: f32[0] = { }\n- [nbytes: 0]\n"
             "n: f32[2] = { nan, nan(0x7fc00001) }\n- [nbytes: 8, nans: 2]\n");
}
