// The vector loops of conv, depthwise conv and batch_norm (xsimd; a multiply then an add, never
// an fma, as the rest of the plugin under -ffp-contract=off). Pointers need no alignment.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstdint>

namespace oi::cpu {

// y[j] += a * x[j]
template <class F>
inline void axpy(uint64_t n, F a, const F* x, F* y) {
  using batch = xsimd::batch<F>;
  constexpr uint64_t lanes = batch::size;
  const batch av(a);
  uint64_t j = 0;
  for (; j + lanes <= n; j += lanes)
    (batch::load_unaligned(y + j) + av * batch::load_unaligned(x + j)).store_unaligned(y + j);
  for (; j < n; ++j) y[j] += a * x[j];
}

// y[j] += b
template <class F>
inline void add_scalar(uint64_t n, F b, F* y) {
  using batch = xsimd::batch<F>;
  constexpr uint64_t lanes = batch::size;
  const batch bv(b);
  uint64_t j = 0;
  for (; j + lanes <= n; j += lanes) (batch::load_unaligned(y + j) + bv).store_unaligned(y + j);
  for (; j < n; ++j) y[j] += b;
}

// y[j] = (x[j] - mu) * m + b; y may be x.
template <class F>
inline void shift_scale_add(uint64_t n, const F* x, F mu, F m, F b, F* y) {
  using batch = xsimd::batch<F>;
  constexpr uint64_t lanes = batch::size;
  const batch muv(mu), mv(m), bv(b);
  uint64_t j = 0;
  for (; j + lanes <= n; j += lanes)
    ((batch::load_unaligned(x + j) - muv) * mv + bv).store_unaligned(y + j);
  for (; j < n; ++j) y[j] = (x[j] - mu) * m + b;
}

}  // namespace oi::cpu
