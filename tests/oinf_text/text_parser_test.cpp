// `pack`'s reader: accepted spellings (any order, sizevar dims, compat str, comments, values
// over several lines) and errors that name the line and column.
#define BOOST_TEST_MODULE oinf_text_parser
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/oinf_text.hpp"

namespace {

oi::Model pack(const std::string& text) {
  return oi::Model::from_bytes(oi::parse_oinf_text(text, "t.txt").to_bytes());
}

// "WHERE: error: MESSAGE" of the error that parsing `text` throws.
std::string error_of(const std::string& text) {
  try {
    oi::parse_oinf_text(text, "t.txt");
  } catch (const oi::Error& e) {
    BOOST_TEST((e.kind() == oi::ErrorKind::Input));
    return e.where() + ": " + e.what();
  }
  return "<no error>";
}

}  // namespace

BOOST_AUTO_TEST_CASE(any_order_sizevar_dims_and_comments) {
  const std::string text =
      "# a comment line\n"
      "\n"
      "w: i4[N, B] = { -8, 7, 0, 1, 2, 3, 4, 5 }  # trailing comment\n"
      "mode: str = \"clamp_up\"\n"
      "@alpha: f32 = 0.5\n"
      "B := 4\n"
      "N := 2\n"
      "a: f32[B] = {\n"
      "  1, 2.0,\n"
      "  3e0, 4.0,\n"
      "}\n"
      "y: i16[B]\n"
      "s: f64 = 2.5\n"
      "e: u8[]\n";
  const oi::Model m = pack(text);
  BOOST_TEST(m.size_of("B") == 4u);
  BOOST_TEST(m.size_of("N") == 2u);
  BOOST_TEST(m.metadata_value("mode").text == "clamp_up");
  BOOST_TEST(m.metadata_value("alpha").tensor.get_float(0) == 0.5);
  const oi::Tensor w = m.tensor("w");
  BOOST_TEST((w.shape() == oi::Shape{2, 4}));
  BOOST_TEST(w.get_int(0) == -8);
  BOOST_TEST(w.get_int(1) == 7);
  BOOST_TEST(w.get_int(7) == 5);
  const oi::Tensor a = m.tensor("a");
  BOOST_TEST(a.get_float(2) == 3.0);
  BOOST_TEST(!m.find_tensor("y")->has_data);
  BOOST_TEST((m.find_tensor("y")->dims == oi::Shape{4}));
  BOOST_TEST(m.tensor("s").get_float(0) == 2.5);
  BOOST_TEST(m.find_tensor("e")->dims.empty());
  // Tables come out sorted by name, as a canonical writer writes them.
  BOOST_TEST(m.tensors()[0].name == "a");
  BOOST_TEST(m.sizevars()[0].name == "B");
}

BOOST_AUTO_TEST_CASE(metadata_kinds) {
  const oi::Model m = pack(
      "@mask: bitset[10] = 0b1011001110\n"
      "@lut: ndarray i16[2, K] = { -1, 2, 3, 4 }\n"
      "K := 2\n"
      "@t: t1 = -1\n");
  const oi::MetaValue mask = m.metadata_value("mask");
  BOOST_TEST(mask.bit_count == 10u);
  // bit 0 first: 1,0,1,1,0,0,1,1 | 1,0 -> 0b11001101, 0b01
  BOOST_TEST(mask.bits.size() == 2u);
  BOOST_TEST(mask.bits[0] == 0xCDu);
  BOOST_TEST(mask.bits[1] == 0x01u);
  const oi::MetaValue lut = m.metadata_value("lut");
  BOOST_TEST((lut.tensor.shape() == oi::Shape{2, 2}));
  BOOST_TEST(lut.tensor.get_int(0) == -1);
  BOOST_TEST(m.metadata_value("t").tensor.get_int(0) == -1);
}

BOOST_AUTO_TEST_CASE(errors_name_line_and_column) {
  BOOST_TEST(error_of("a: f33[2] = { 1, 2 }\n") == "t.txt:1:4: unknown dtype 'f33'");
  BOOST_TEST(error_of("\na: u8[2] = { 1, 256 }\n") ==
             "t.txt:2:17: value 256 does not fit u8 (0..255)");
  BOOST_TEST(error_of("a: f32[3] = { 1, 2 }\n") ==
             "t.txt:1:13: 'a' has 2 values but f32[3] holds 3");
  BOOST_TEST(error_of("a: f32[B] = { 1 }\n") == "t.txt:1:8: unknown size variable 'B' in dims");
  BOOST_TEST(error_of("a f32\n") == "t.txt:1:3: expected ':' after the name, got 'f32'");
  BOOST_TEST(error_of("a: f32 = 1 2\n") ==
             "t.txt:1:12: unexpected '2' after the entry (one entry per line)");
  BOOST_TEST(error_of("a: f32[2] = { 1, 2\nb: f32\n") == "t.txt:1:13: '{' is never closed");
  BOOST_TEST(error_of("a: f32[2] = 1\n") ==
             "t.txt:1:13: a tensor with dims takes its values in { }");
  BOOST_TEST(error_of("a: i8 = 1\na: i8 = 2\n") ==
             "t.txt:2:1: duplicate tensor 'a' (first on line 1)");
  BOOST_TEST(error_of("B := 1\nB := 2\n") ==
             "t.txt:2:1: duplicate size variable 'B' (first on line 1)");
  BOOST_TEST(error_of("B := -1\n") ==
             "t.txt:1:6: size variable value must be an unsigned 64-bit integer, got '-1'");
  BOOST_TEST(error_of("@m: str = \"a b\"\n") ==
             "t.txt:1:11: string value must be at least one of the characters [A-Za-z0-9._-]");
  BOOST_TEST(error_of("@m: str = \"abc\n") == "t.txt:1:11: unterminated string");
  BOOST_TEST(error_of("@m: bitset[3] = 0b10\n") ==
             "t.txt:1:17: bitset[3] needs exactly 3 binary digits, got 2");
  BOOST_TEST(error_of("@m: bitset = 5\n") ==
             "t.txt:1:12: a bitset metadata entry needs a bit count: bitset[N] = 0b...");
  BOOST_TEST(error_of("@m: list = 5\n") == "t.txt:1:5: unknown metadata type 'list'");
  BOOST_TEST(error_of("a: ndarray i8[1] = { 1 }\n") ==
             "t.txt:1:4: ndarray is for metadata entries: start the line with '@'");
  BOOST_TEST(error_of("a$b: f32\n") == "t.txt:1:2: unexpected character '$'");
  BOOST_TEST(error_of("a+b: f32\n") ==
             "t.txt:1:1: 'a+b' is not a valid name: use only [A-Za-z0-9._-]");
  BOOST_TEST(error_of("a: f32[99999999999999999999]\n") ==
             "t.txt:1:8: dim 99999999999999999999 does not fit u64");
  BOOST_TEST(error_of("a: u8[4294967296, 4294967296]\n") ==
             "t.txt:1:6: dims of 'a' overflow 64 bits");
  BOOST_TEST(error_of("a: f16 = nan(0x7e00\n") == "t.txt:1:10: malformed NaN: write nan(0xHEX)");
}

BOOST_AUTO_TEST_CASE(mangled_text_gives_errors_never_crashes) {
  std::ifstream in(OPENINFER_SOURCE_DIR "/tests/oinf_text/fixtures/all_dtypes.txt");
  BOOST_REQUIRE(in);
  const std::string good{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string inserts[] = {"{",  "}",  ",", "[", "]", ":",  "=",    "@",
                                 "\"", "\n", "x", "-", "9", "0b", "nan(", "\xff"};
  size_t parsed = 0, rejected = 0;
  auto attempt = [&](const std::string& text) {
    try {
      oi::parse_oinf_text(text, "t.txt").to_bytes();
      ++parsed;
    } catch (const oi::Error& e) {
      BOOST_TEST(!std::string(e.what()).empty());
      ++rejected;
    }
  };
  for (size_t cut = 0; cut <= good.size(); cut += 3) {
    attempt(good.substr(0, cut));                                                // truncated
    attempt(good.substr(0, cut) + good.substr(std::min(cut + 1, good.size())));  // a char dropped
    attempt(good.substr(0, cut) + inserts[cut % std::size(inserts)] + good.substr(cut));
  }
  BOOST_TEST(parsed > 0u);
  BOOST_TEST(rejected > 0u);
}
