// Helpers for the OINF tests: byte buffers from hex, field patches, rejection checks.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "openinfer/error.hpp"
#include "openinfer/model.hpp"

namespace oinf_test {

using Bytes = std::vector<std::byte>;

// "4f49 4e46 ..." (whitespace ignored) to bytes.
inline Bytes from_hex(std::string_view hex) {
  Bytes out;
  int high = -1;
  for (char c : hex) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (v < 0) continue;
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<std::byte>(high * 16 + v));
      high = -1;
    }
  }
  return out;
}

inline Bytes read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " << path);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bytes out(chars.size());
  for (size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

inline Bytes fixture(const char* name) {
  return read_file(std::filesystem::path(OINF_FIXTURE_DIR) / name);
}

inline Bytes patch_u32(Bytes b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(at + i) = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
  return b;
}

inline Bytes patch_u64(Bytes b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.at(at + i) = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
  return b;
}

inline Bytes patch_u8(Bytes b, size_t at, uint8_t v) {
  b.at(at) = std::byte{v};
  return b;
}

// Offset of the first occurrence of `text` in `b`.
inline size_t find(const Bytes& b, std::string_view text) {
  for (size_t i = 0; i + text.size() <= b.size(); ++i) {
    bool match = true;
    for (size_t j = 0; j < text.size() && match; ++j)
      match = std::to_integer<char>(b[i + j]) == text[j];
    if (match) return i;
  }
  BOOST_FAIL("'" << text << "' not found");
  return 0;
}

// The reader must reject `bytes` with an Input error "model.oinf: ..." containing `fragment`.
inline void expect_rejected(const Bytes& bytes, std::string_view fragment) {
  try {
    (void)oi::Model::from_bytes(bytes, "model.oinf");
    BOOST_ERROR("accepted a bad file; expected: " << fragment);
  } catch (const oi::Error& e) {
    const std::string msg = e.what();
    BOOST_TEST((e.kind() == oi::ErrorKind::Input));
    BOOST_TEST(msg.rfind("model.oinf: ", 0) == 0, "message: " << msg);
    BOOST_TEST(msg.find(fragment) != std::string::npos,
               "message: " << msg << "\n  expected: " << fragment);
  }
}

}  // namespace oinf_test
