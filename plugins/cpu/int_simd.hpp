// Wrapping integer add/sub/mul over contiguous runs, 16 bytes per step with GCC vector
// extensions on unsigned lanes (modular by definition, no signed-overflow UB). The plugin is
// built for generic x86-64, where this is SSE2; other targets get their own vector code or
// scalar fallbacks from the compiler. Loads and stores go through memcpy since a tensor may
// sit at any byte offset.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace oi::cpu {

enum class WrapOp { Add, Sub, Mul };

template <WrapOp Op, class V>
inline V wrap_apply(V a, V b) {
  if constexpr (Op == WrapOp::Add) {
    return a + b;
  } else if constexpr (Op == WrapOp::Sub) {
    return a - b;
  } else {
    return a * b;
  }
}

// out[i] = a[i * a_step] op b[i * b_step] for a prefix of [0, n) that leaves less than one
// vector's worth; steps are 0 (broadcast) or 1. Returns how many elements were written; the caller
// finishes the tail. In place (out == a or b) is fine: each vector is read before it is written.
// With `stream` (large outputs aliasing no input), a scalar head aligns the output and the vectors
// are written with non-temporal stores (stream_store.hpp says why).
template <WrapOp Op, class T>
uint64_t wrap_run(const std::byte* a, uint64_t a_step, const std::byte* b, uint64_t b_step,
                  std::byte* out, uint64_t n, bool stream = false) {
  using U = std::make_unsigned_t<T>;
  using V [[gnu::vector_size(16)]] = U;
  constexpr uint64_t lanes = 16 / sizeof(U);
  auto scalar = [&](uint64_t i) {
    U x, y;
    std::memcpy(&x, a + i * a_step * sizeof(U), sizeof x);
    std::memcpy(&y, b + i * b_step * sizeof(U), sizeof y);
    // In 64 bits: no promotion to int (u16 * u16 would overflow it); truncation wraps.
    const U r = static_cast<U>(wrap_apply<Op>(uint64_t{x}, uint64_t{y}));
    std::memcpy(out + i * sizeof(U), &r, sizeof r);
  };
  auto put = [&](std::byte* p, V v) {
#if defined(__SSE2__)
    if (stream) {
      __m128i bits;
      std::memcpy(&bits, &v, sizeof bits);
      _mm_stream_si128(reinterpret_cast<__m128i*>(p), bits);
      return;
    }
#endif
    std::memcpy(p, &v, sizeof v);
  };
  uint64_t i = 0;
#if defined(__SSE2__)
  const uint64_t mis = reinterpret_cast<uintptr_t>(out) % 16;
  stream = stream && mis % sizeof(U) == 0;
  if (stream) {
    for (const uint64_t head = mis ? (16 - mis) / sizeof(U) : 0; i < head && i < n; ++i) {
      scalar(i);
    }
  }
#else
  stream = false;
#endif
  auto load = [](const std::byte* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  auto splat = [](const std::byte* p) {
    U s;
    std::memcpy(&s, p, sizeof s);
    V v;
    for (uint64_t k = 0; k < lanes; ++k) v[k] = s;
    return v;
  };
  const V a_bcast = a_step ? V{} : splat(a);
  const V b_bcast = b_step ? V{} : splat(b);
  // Two vectors per step keeps the loop overhead small next to the loads.
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const uint64_t at = i * sizeof(U), next = at + sizeof(V);
    const V r0 = wrap_apply<Op>(a_step ? load(a + at) : a_bcast, b_step ? load(b + at) : b_bcast);
    const V r1 =
        wrap_apply<Op>(a_step ? load(a + next) : a_bcast, b_step ? load(b + next) : b_bcast);
    put(out + at, r0);
    put(out + next, r1);
  }
  for (; i + lanes <= n; i += lanes) {
    const uint64_t at = i * sizeof(U);
    const V r = wrap_apply<Op>(a_step ? load(a + at) : a_bcast, b_step ? load(b + at) : b_bcast);
    put(out + at, r);
  }
#if defined(__SSE2__)
  if (stream) _mm_sfence();
#endif
  return i;
}

}  // namespace oi::cpu
