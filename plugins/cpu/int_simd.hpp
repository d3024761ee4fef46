// Wrapping integer add/sub/mul over contiguous runs, 16 bytes per step with GCC vector
// extensions on unsigned lanes (modular by definition, no signed-overflow UB). The plugin is
// built for generic x86-64, where this is SSE2; other targets get their own vector code or
// scalar fallbacks from the compiler. Loads and stores go through memcpy since a tensor may
// sit at any byte offset.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

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

// out[i] = a[i * a_step] op b[i * b_step] for the largest multiple of the vector width not
// above n; steps are 0 (broadcast) or 1. Returns how many elements were written; the caller
// finishes the tail. In place (out == a or b) is fine: each vector is read before it is written.
template <WrapOp Op, class T>
uint64_t wrap_run(const std::byte* a, uint64_t a_step, const std::byte* b, uint64_t b_step,
                  std::byte* out, uint64_t n) {
  using U = std::make_unsigned_t<T>;
  using V [[gnu::vector_size(16)]] = U;
  constexpr uint64_t lanes = 16 / sizeof(U);
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
  uint64_t i = 0;
  // Two vectors per step keeps the loop overhead small next to the loads.
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const uint64_t at = i * sizeof(U), next = at + sizeof(V);
    const V r0 = wrap_apply<Op>(a_step ? load(a + at) : a_bcast, b_step ? load(b + at) : b_bcast);
    const V r1 =
        wrap_apply<Op>(a_step ? load(a + next) : a_bcast, b_step ? load(b + next) : b_bcast);
    std::memcpy(out + at, &r0, sizeof r0);
    std::memcpy(out + next, &r1, sizeof r1);
  }
  for (; i + lanes <= n; i += lanes) {
    const uint64_t at = i * sizeof(U);
    const V r = wrap_apply<Op>(a_step ? load(a + at) : a_bcast, b_step ? load(b + at) : b_bcast);
    std::memcpy(out + at, &r, sizeof r);
  }
  return i;
}

}  // namespace oi::cpu
