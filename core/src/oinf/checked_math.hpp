// Overflow-checked unsigned arithmetic for untrusted header fields.
#pragma once

#include <cstdint>
#include <optional>

namespace oi::oinf {

inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// The next multiple of 8 at or after `n`, or nullopt on overflow.
inline std::optional<uint64_t> checked_round_up8(uint64_t n) {
  auto r = checked_add(n, 7);
  if (!r) return std::nullopt;
  return *r & ~uint64_t{7};
}

}  // namespace oi::oinf
