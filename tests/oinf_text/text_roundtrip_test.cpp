// The key property of the text form: for every dtype, `dump` of a canonical file followed by
// `pack` gives the same bytes, and `pack` followed by `dump` gives the canonical text. The
// fixtures (text and binary) come from the independent Python reference gen_text_fixtures.py.
#define BOOST_TEST_MODULE oinf_text_roundtrip
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "openinfer/oinf_text.hpp"

namespace {

const std::string kFixtures = OPENINFER_SOURCE_DIR "/tests/oinf_text/fixtures/";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::byte> as_bytes(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::transform(s.begin(), s.end(), out.begin(), [](char c) { return std::byte(c); });
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::byte> pack(const std::string& text) {
  return oi::parse_oinf_text(text, "all_dtypes.txt").to_bytes();
}

}  // namespace

BOOST_AUTO_TEST_CASE(dump_of_canonical_file_is_canonical_text) {
  const auto model = oi::Model::from_bytes(as_bytes(read_file(kFixtures + "all_dtypes.oinf")));
  BOOST_TEST(oi::dump_oinf_text(model) == read_file(kFixtures + "all_dtypes.txt"));
}

BOOST_AUTO_TEST_CASE(pack_of_canonical_text_is_canonical_file) {
  const auto expected = as_bytes(read_file(kFixtures + "all_dtypes.oinf"));
  const auto got = pack(read_file(kFixtures + "all_dtypes.txt"));
  BOOST_TEST(got == expected);
}

BOOST_AUTO_TEST_CASE(pack_sorts_and_resolves_sizevars) {
  // Entries reversed, a dim written as a sizevar name, comments and blank lines added.
  auto lines = lines_of(read_file(kFixtures + "all_dtypes.txt"));
  std::reverse(lines.begin(), lines.end());
  std::string text;
  for (const std::string& line : lines) {
    std::string l = line;
    if (l.starts_with("t_i8: i8[4]")) l.replace(0, 11, "t_i8: i8[B]");
    text += l + "   # comment\n\n";
  }
  BOOST_TEST(text.find("t_i8: i8[B]") != std::string::npos);
  BOOST_TEST(pack(text) == as_bytes(read_file(kFixtures + "all_dtypes.oinf")));
}

BOOST_AUTO_TEST_CASE(every_dtype_alone_round_trips) {
  size_t dtypes = 0;
  for (const std::string& line : lines_of(read_file(kFixtures + "all_dtypes.txt"))) {
    if (!line.starts_with("t_")) continue;
    const std::string text = "# openinfer oinf text v1\n" + line + "\n";
    const auto bytes = pack(text);
    const auto model = oi::Model::from_bytes(bytes);
    BOOST_TEST_INFO(line);
    BOOST_TEST(oi::dump_oinf_text(model) == text);
    BOOST_TEST(pack(oi::dump_oinf_text(model)) == bytes);
    ++dtypes;
  }
  BOOST_TEST(dtypes == 23u);
}
