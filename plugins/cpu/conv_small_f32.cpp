#include "conv_small_f32.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "parallel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#define OI_SMALL_CONV_X86 1
#endif

namespace oi::cpu {

#if OI_SMALL_CONV_X86
namespace {

#define OI_AVX2_FMA __attribute__((target("avx2,fma")))

// Lanes [0, n) of a vector, n <= 8.
OI_AVX2_FMA __m256i lanes_below(uint64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The eight horizontal sums of a[0..7] as one vector, lane i the sum of a[i].
OI_AVX2_FMA __attribute__((always_inline)) inline __m256 sums8(const __m256* a) {
  const __m256 t0 = _mm256_hadd_ps(a[0], a[1]), t1 = _mm256_hadd_ps(a[2], a[3]);
  const __m256 t2 = _mm256_hadd_ps(a[4], a[5]), t3 = _mm256_hadd_ps(a[6], a[7]);
  const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
  return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

// out[r * P + c] = w_r . xt_c (+ bias[r]) for R rows of w (row stride K) and CB cells of xt
// (row stride kp, zero-padded to kp), R * CB <= 8.
template <int R, int CB>
OI_AVX2_FMA void block(const float* w, uint64_t K, const float* xt, uint64_t kp, const float* bias,
                       float* out, uint64_t P) {
  __m256 acc[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) acc[i] = _mm256_setzero_ps();
  uint64_t k = 0;
  for (; k + 8 <= K; k += 8) {
    __m256 xv[CB];
#pragma GCC unroll 4
    for (int c = 0; c < CB; ++c) {
      xv[c] = _mm256_loadu_ps(xt + c * kp + k);
      // Kept in a register for both rows: GCC would otherwise fold the load into each
      // multiply-add, and the loads, not the multiply-adds, would bound the loop.
      __asm__("" : "+x"(xv[c]));
    }
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r) {
      // The rows four blocks on stream in from L2/L3 meanwhile (the weights do not stay in L1).
      _mm_prefetch(reinterpret_cast<const char*>(w + (r + 4 * R) * K + k), _MM_HINT_T0);
      const __m256 wv = _mm256_loadu_ps(w + r * K + k);
#pragma GCC unroll 4
      for (int c = 0; c < CB; ++c) acc[r * CB + c] = _mm256_fmadd_ps(wv, xv[c], acc[r * CB + c]);
    }
  }
  if (k < K) {  // the last K % 8: w masked (no read past its row), xt zero-padded
    const __m256i m = lanes_below(K - k);
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r) {
      const __m256 wv = _mm256_maskload_ps(w + r * K + k, m);
#pragma GCC unroll 4
      for (int c = 0; c < CB; ++c)
        acc[r * CB + c] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(xt + c * kp + k), acc[r * CB + c]);
    }
  }
  alignas(32) float s[8];
  _mm256_store_ps(s, sums8(acc));
#pragma GCC unroll 2
  for (int r = 0; r < R; ++r) {
    const float b = bias ? bias[r] : 0.0f;
#pragma GCC unroll 4
    for (int c = 0; c < CB; ++c) out[r * P + c] = bias ? s[r * CB + c] + b : s[r * CB + c];
  }
}

template <int R>
OI_AVX2_FMA void row_block(const float* w, uint64_t K, const float* xt, uint64_t kp,
                           const float* bias, float* out, uint64_t P) {
  uint64_t c = 0;
  for (; c + 4 <= P; c += 4) block<R, 4>(w, K, xt + c * kp, kp, bias, out + c, P);
  switch (P - c) {
    case 3:
      block<R, 3>(w, K, xt + c * kp, kp, bias, out + c, P);
      break;
    case 2:
      block<R, 2>(w, K, xt + c * kp, kp, bias, out + c, P);
      break;
    case 1:
      block<R, 1>(w, K, xt + c * kp, kp, bias, out + c, P);
      break;
    default:
      break;
  }
}

bool has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

}  // namespace

bool conv_small_f32(const float* x, const float* w, const float* bias, float* y,
                    const ConvShape& s) {
  if (!has_avx2_fma()) return false;
  const WindowGeometry& g = s.g;
  const uint64_t G = s.group, Mg = s.out_per_group(), Cg = s.in_per_group(), M = s.out_channels;
  const uint64_t K = s.inner(), P = g.out_plane(), kp = (K + 7) / 8 * 8;
  thread_local std::vector<float> xt;
  if (xt.size() < P * kp) xt.resize(P * kp);
  for (uint64_t n = 0; n < g.batch; ++n)
    for (uint64_t gi = 0; gi < G; ++gi) {
      // xt[cell][(ci, kh, kw)]: the cell's window, zeros where it leaves the input.
      const float* xg = x + (n * g.channels + gi * Cg) * g.in_plane();
      float* cols = xt.data();
      std::fill(cols, cols + P * kp, 0.0f);
      for (uint64_t kh = 0; kh < g.k_h; ++kh) {
        const IndexRange vh = geometry::valid_outputs(g.axis_h(), g.out_h, kh);
        for (uint64_t kw = 0; kw < g.k_w; ++kw) {
          const IndexRange vw = geometry::valid_outputs(g.axis_w(), g.out_w, kw);
          for (uint64_t oh = vh.lo; oh < vh.hi; ++oh) {
            const uint64_t ih = oh * g.stride_h + kh * g.dil_h - g.pad_top;
            for (uint64_t ow = vw.lo; ow < vw.hi; ++ow) {
              const float* src = xg + ih * g.in_w + (ow * g.stride_w + kw * g.dil_w - g.pad_left);
              float* dst = cols + (oh * g.out_w + ow) * kp + kh * g.k_w + kw;
              for (uint64_t ci = 0; ci < Cg; ++ci) dst[ci * g.taps()] = src[ci * g.in_plane()];
            }
          }
        }
      }
      const float* wg = w + gi * Mg * K;
      const float* bg = bias ? bias + gi * Mg : nullptr;
      float* yg = y + (n * M + gi * Mg) * P;
      // `cols` is this thread's xt: workers have their own thread_local.
      const uint64_t pairs = Mg / 2;
      parallel_ranges(pairs, 2 * K * P, [&](uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i)
          row_block<2>(wg + 2 * i * K, K, cols, kp, bg ? bg + 2 * i : nullptr, yg + 2 * i * P, P);
      });
      if (Mg % 2)
        row_block<1>(wg + (Mg - 1) * K, K, cols, kp, bg ? bg + Mg - 1 : nullptr, yg + (Mg - 1) * P,
                     P);
    }
  return true;
}

#else

bool conv_small_f32(const float*, const float*, const float*, float*, const ConvShape&) {
  return false;
}

#endif

}  // namespace oi::cpu
