// Little-endian integer loads and stores on raw bytes (memcpy-free byte assembly, so any
// alignment and any host byte order are fine).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace oi::oinf {

inline uint32_t load_u32le(const std::byte* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | std::to_integer<uint32_t>(p[i]);
  return v;
}

inline uint64_t load_u64le(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | std::to_integer<uint64_t>(p[i]);
  return v;
}

inline void append_u32le(std::vector<std::byte>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
}

inline void append_u64le(std::vector<std::byte>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
}

inline void store_u64le(std::byte* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
}

inline void append_zeros(std::vector<std::byte>& out, uint64_t n) {
  out.insert(out.end(), static_cast<size_t>(n), std::byte{0});
}

}  // namespace oi::oinf
