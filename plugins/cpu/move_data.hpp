// Shared by the data-movement ops (reshape, transpose, concat, gather): bit-exact copies of
// elements. Byte-sized dtypes copy bytes; packed dtypes (i1/i2/i4/u1/u2/u4) move element by
// element through their raw bits and stay packed, never widened as a whole tensor.
#pragma once

#include <cstring>

#include "dtype_io.hpp"
#include "element_types.hpp"

namespace oi::cpu {

struct ElementMover {
  const ElemIO& io;
  explicit ElementMover(uint32_t dtype) : io(elem_io(dtype)) {}
  bool packed() const { return io.bits < 8; }
  // Bytes that `count` elements occupy.
  uint64_t bytes(uint64_t count) const { return (count * io.bits + 7) / 8; }
  // Copies `count` consecutive elements from src[si...] to dst[di...].
  void run(std::byte* dst, uint64_t di, const std::byte* src, uint64_t si, uint64_t count) const {
    if (count == 0) return;
    if (!packed()) {
      const uint64_t size = io.bits / 8;
      std::memcpy(dst + di * size, src + si * size, count * size);
      return;
    }
    for (uint64_t k = 0; k < count; ++k) io.st_bits(dst, di + k, io.ld_bits(src, si + k));
  }
};

}  // namespace oi::cpu
