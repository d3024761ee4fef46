#include "conv_gemm.hpp"

#if OPENINFER_CPU_HAVE_OPENBLAS
#include <cblas.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <climits>
#include <mutex>
#include <vector>

#include "parallel.hpp"
#endif

namespace oi::cpu {

#if OPENINFER_CPU_HAVE_OPENBLAS
namespace {

// c[m, n] (+)= a[m, k] x b[k, n], row-major with leading dimensions.
void gemm(const float* a, const float* b, float* c, int m, int n, int k, int lda, int ldb, int ldc,
          bool accumulate) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
              accumulate ? 1.0f : 0.0f, c, ldc);
}
void gemm(const double* a, const double* b, double* c, int m, int n, int k, int lda, int ldb,
          int ldc, bool accumulate) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb,
              accumulate ? 1.0 : 0.0, c, ldc);
}

// oneTBB's workers run the tiles; OpenBLAS's own threads would compete with them.
void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

}  // namespace

template <class C>
bool stride1_conv_gemm(const C* x, const C* w, C* y, const ConvShape& s) {
  const WindowGeometry& g = s.g;
  const uint64_t G = s.group, Cg = s.in_per_group(), Mg = s.out_per_group(), taps = g.taps();
  if (g.stride_h != 1 || g.stride_w != 1 || taps == 1 || Cg < 4 || Mg < 4) return false;
  const uint64_t Hp = g.out_h + g.dil_h * (g.k_h - 1), Wp = g.out_w + g.dil_w * (g.k_w - 1);
  const uint64_t plane = Hp * Wp, wide = g.out_h * Wp, P = g.out_plane();
  const uint64_t slack = g.dil_w * (g.k_w - 1);  // the last tap's reads past the last row
  if (g.batch * s.out_channels * wide * Cg * taps < (uint64_t{1} << 20)) return false;
  if (Cg * plane + slack > INT_MAX || Mg * wide > INT_MAX) return false;
  single_threaded_blas();

  // Weights per tap: wt[group][tap] is an [Mg, Cg] matrix.
  std::vector<C> wt(G * taps * Mg * Cg);
  for (uint64_t gm = 0; gm < G * Mg; ++gm)
    for (uint64_t c = 0; c < Cg; ++c)
      for (uint64_t t = 0; t < taps; ++t)
        wt[(((gm / Mg) * taps + t) * Mg + gm % Mg) * Cg + c] = w[(gm * Cg + c) * taps + t];

  std::vector<C> xpad(Cg * plane + slack, C(0)), out(Mg * wide);
  const auto workers = static_cast<uint64_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const uint64_t tiles = std::clamp<uint64_t>(wide / 256, 1, 2 * workers);
  const uint64_t tile = (wide + tiles - 1) / tiles;
  for (uint64_t n = 0; n < g.batch; ++n) {
    for (uint64_t gi = 0; gi < G; ++gi) {
      const C* xg = x + (n * g.channels + gi * Cg) * g.in_plane();
      parallel_ranges(Cg, plane, [&](uint64_t c0, uint64_t c1) {
        for (uint64_t c = c0; c < c1; ++c)
          for (uint64_t ih = 0; ih < g.in_h; ++ih) {
            const C* src = xg + (c * g.in_h + ih) * g.in_w;
            std::copy(src, src + g.in_w,
                      xpad.data() + c * plane + (ih + g.pad_top) * Wp + g.pad_left);
          }
      });
      const C* wg = wt.data() + gi * taps * Mg * Cg;
      tbb::parallel_for(uint64_t{0}, tiles, [&](uint64_t t) {
        const uint64_t j0 = t * tile, j1 = std::min(wide, j0 + tile);
        if (j0 >= j1) return;
        for (uint64_t kh = 0; kh < g.k_h; ++kh)
          for (uint64_t kw = 0; kw < g.k_w; ++kw) {
            const uint64_t tap = kh * g.k_w + kw;
            const uint64_t offset = kh * g.dil_h * Wp + kw * g.dil_w;
            gemm(wg + tap * Mg * Cg, xpad.data() + offset + j0, out.data() + j0,
                 static_cast<int>(Mg), static_cast<int>(j1 - j0), static_cast<int>(Cg),
                 static_cast<int>(Cg), static_cast<int>(plane), static_cast<int>(wide), tap > 0);
          }
      });
      C* yg = y + (n * s.out_channels + gi * Mg) * P;
      parallel_ranges(Mg, P, [&](uint64_t m0, uint64_t m1) {
        for (uint64_t m = m0; m < m1; ++m)
          for (uint64_t oh = 0; oh < g.out_h; ++oh) {
            const C* src = out.data() + m * wide + oh * Wp;
            std::copy(src, src + g.out_w, yg + m * P + oh * g.out_w);
          }
      });
    }
  }
  return true;
}

#else

template <class C>
bool stride1_conv_gemm(const C*, const C*, C*, const ConvShape&) {
  return false;
}

#endif

template bool stride1_conv_gemm<float>(const float*, const float*, float*, const ConvShape&);
template bool stride1_conv_gemm<double>(const double*, const double*, double*, const ConvShape&);

}  // namespace oi::cpu
