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

// y[j] = 0 + w[0] * x[j + off[0]] + w[1] * x[j + off[1]] + ... in tap order, summed in
// registers: the same result as one axpy per tap into zeros, with one store instead of `taps`.
template <class F>
inline void all_taps(uint64_t n, const F* w, const F* x, const uint64_t* off, uint64_t taps, F* y) {
  using batch = xsimd::batch<F>;
  constexpr uint64_t lanes = batch::size;
  uint64_t j = 0;
  for (; j + 4 * lanes <= n; j += 4 * lanes) {  // four vectors in flight hide the add latency
    batch s0(F(0)), s1(F(0)), s2(F(0)), s3(F(0));
    for (uint64_t t = 0; t < taps; ++t) {
      const batch wv(w[t]);
      const F* xt = x + off[t] + j;
      s0 = s0 + wv * batch::load_unaligned(xt);
      s1 = s1 + wv * batch::load_unaligned(xt + lanes);
      s2 = s2 + wv * batch::load_unaligned(xt + 2 * lanes);
      s3 = s3 + wv * batch::load_unaligned(xt + 3 * lanes);
    }
    s0.store_unaligned(y + j);
    s1.store_unaligned(y + j + lanes);
    s2.store_unaligned(y + j + 2 * lanes);
    s3.store_unaligned(y + j + 3 * lanes);
  }
  for (; j < n; ++j) {
    F s(0);
    for (uint64_t t = 0; t < taps; ++t) s += w[t] * x[off[t] + j];
    y[j] = s;
  }
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
