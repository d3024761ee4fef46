#include "conv_depthwise_f32.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define OI_DEPTHWISE_X86 1
#endif

namespace oi::cpu {

#if OI_DEPTHWISE_X86
namespace {

#define OI_AVX2_FMA __attribute__((target("avx2,fma")))

// Below this many multiply-adds one thread finishes before a second one would have started.
constexpr uint64_t kInlineMacs = uint64_t{1} << 17;
// Multiply-adds per task: a few microseconds, far above oneTBB's cost per task.
constexpr uint64_t kChunkMacs = uint64_t{1} << 16;

// Each plane is copied into a zero-padded buffer, so every output vector reads 8 neighbouring
// cells per tap with no bounds checks. A padded row of a stride-s conv is stored as s phases
// (phase r holds padded cells r, r + s, r + 2s, ...): tap offset o then reads phase o % s from
// cell ow + o / s, contiguous for 8 neighbouring outputs whatever the stride.
struct PaddedPlane {
  uint64_t vec_w;    // outputs per row rounded up to one vector: rows narrower than 8 still load 8
  uint64_t phase_w;  // cells per phase
  uint64_t row_len;  // stride_w phases
  uint64_t rows;     // padded rows that some output reads

  explicit PaddedPlane(const WindowGeometry& g)
      : vec_w(std::max<uint64_t>(g.out_w, 8)),
        phase_w(vec_w + g.dil_w * (g.k_w - 1) / g.stride_w + 1),
        row_len(g.stride_w * phase_w),
        rows((g.out_h - 1) * g.stride_h + g.axis_h().span()) {}

  // Where padded column c lives in a row.
  uint64_t column(uint64_t c, uint64_t stride) const { return (c % stride) * phase_w + c / stride; }
};

// Lanes [0, n) of a vector, n <= 8.
OI_AVX2_FMA __m256i first_lanes(uint64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// dst[0, n) = src[0, n) and dst[n, 8 * ceil(n / 8)) = 0, never reading past src + n. (A masked
// store is slow on AMD cores; the zeros land in padding or in cells filled later.)
OI_AVX2_FMA void copy_row(const float* src, float* dst, uint64_t n) {
  uint64_t j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(dst + j, _mm256_loadu_ps(src + j));
  if (j < n) _mm256_storeu_ps(dst + j, _mm256_maskload_ps(src + j, first_lanes(n - j)));
}

// Copies the input plane `in` into `buf`, whose padding cells are zero and stay so. Rows go
// top to bottom, so copy_row's zeros past a row's end never overwrite filled cells; `buf` has
// 8 cells of slack past the last row for them.
OI_AVX2_FMA void fill_plane(const float* in, const WindowGeometry& g, const PaddedPlane& pp,
                            float* buf) {
  const uint64_t cols = pp.row_len;  // padded columns [0, row_len) cover every read
  if (g.pad_left >= cols) return;
  const uint64_t width = std::min(g.in_w, cols - g.pad_left), s = g.stride_w;
  for (uint64_t ih = 0; ih < g.in_h && ih + g.pad_top < pp.rows; ++ih) {
    const float* src = in + ih * g.in_w;
    float* dst = buf + (ih + g.pad_top) * pp.row_len;
    if (s == 1) {
      copy_row(src, dst + g.pad_left, width);
    } else {
      for (uint64_t iw = 0; iw < width; ++iw) dst[pp.column(iw + g.pad_left, s)] = src[iw];
    }
  }
}

// Column starts of a row's output vectors: every 8 columns, the last one ending at out_w (it
// overlaps its neighbour when 8 does not divide out_w; those columns get the same values).
std::vector<uint64_t> vector_starts(uint64_t out_w) {
  std::vector<uint64_t> starts;
  for (uint64_t j = 0; j + 8 <= out_w; j += 8) starts.push_back(j);
  if (out_w % 8 != 0 && out_w > 8) starts.push_back(out_w - 8);
  return starts;
}

// A 3x3 conv with stride and dilation 1 along H: R output rows from padded row `in` on, at the
// column vector starting at j. Each input vector of the R + 2 rows is loaded once for all R
// rows; the R sums are independent, which hides the multiply-add latency. (R = 4 measured
// fastest: 4 sums and 9 weights fit the 16 registers, 0.5 loads per fma; 2 rows x 2 vectors
// was about 10% slower.)
template <int R>
OI_AVX2_FMA __attribute__((always_inline)) inline void tile_3x3(const float* in, uint64_t row_len,
                                                                const uint64_t* col_off,
                                                                const __m256* wv, __m256 bias,
                                                                uint64_t j, float* out,
                                                                uint64_t out_w) {
  __m256 acc[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r] = bias;
#pragma GCC unroll 8
  for (int ir = 0; ir < R + 2; ++ir)
#pragma GCC unroll 8
    for (int kw = 0; kw < 3; ++kw) {
      const __m256 v = _mm256_loadu_ps(in + ir * row_len + col_off[kw] + j);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const int kh = ir - r;  // the tap row of input row ir for output row r
        if (kh >= 0 && kh < 3) acc[r] = _mm256_fmadd_ps(wv[kh * 3 + kw], v, acc[r]);
      }
    }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) _mm256_storeu_ps(out + r * out_w + j, acc[r]);
}

template <int R>
OI_AVX2_FMA __attribute__((always_inline)) inline void rows_3x3(const float* in, uint64_t row_len,
                                                                const uint64_t* col_off,
                                                                const __m256* wv, __m256 bias,
                                                                const std::vector<uint64_t>& starts,
                                                                float* out, uint64_t out_w) {
  for (uint64_t j : starts) tile_3x3<R>(in, row_len, col_off, wv, bias, j, out, out_w);
}

// One plane of a 3x3 conv with stride_h = dil_h = 1 and out_w >= 8 (any stride and dilation
// along W): four output rows at a time, then two, then one.
OI_AVX2_FMA void plane_3x3(const float* buf, const PaddedPlane& pp, const WindowGeometry& g,
                           const std::vector<uint64_t>& starts, const float* wm, float bias,
                           float* out) {
  const uint64_t row_len = pp.row_len, out_w = g.out_w, out_h = g.out_h;
  uint64_t col_off[3];
  for (uint64_t kw = 0; kw < 3; ++kw) col_off[kw] = pp.column(kw * g.dil_w, g.stride_w);
  __m256 wv[9];
  for (int t = 0; t < 9; ++t) wv[t] = _mm256_set1_ps(wm[t]);
  const __m256 bv = _mm256_set1_ps(bias);
  uint64_t oh = 0;
  for (; oh + 4 <= out_h; oh += 4)
    rows_3x3<4>(buf + oh * row_len, row_len, col_off, wv, bv, starts, out + oh * out_w, out_w);
  for (; oh + 2 <= out_h; oh += 2)
    rows_3x3<2>(buf + oh * row_len, row_len, col_off, wv, bv, starts, out + oh * out_w, out_w);
  if (oh < out_h)
    rows_3x3<1>(buf + oh * row_len, row_len, col_off, wv, bv, starts, out + oh * out_w, out_w);
}

// One plane of any depthwise conv: each output vector sums its taps in order.
OI_AVX2_FMA void plane_any(const float* buf, const PaddedPlane& pp, const WindowGeometry& g,
                           const std::vector<uint64_t>& starts, const float* wm, float bias,
                           float* out) {
  const uint64_t taps = g.taps(), out_w = g.out_w;
  std::vector<uint64_t> off(taps);
  for (uint64_t kh = 0; kh < g.k_h; ++kh)
    for (uint64_t kw = 0; kw < g.k_w; ++kw)
      off[kh * g.k_w + kw] = kh * g.dil_h * pp.row_len + pp.column(kw * g.dil_w, g.stride_w);
  const __m256 bv = _mm256_set1_ps(bias);
  auto sum = [&](const float* p) OI_AVX2_FMA {
    __m256 acc = bv;
    for (uint64_t t = 0; t < taps; ++t)
      acc = _mm256_fmadd_ps(_mm256_broadcast_ss(wm + t), _mm256_loadu_ps(p + off[t]), acc);
    return acc;
  };
  for (uint64_t oh = 0; oh < g.out_h; ++oh) {
    const float* base = buf + oh * g.stride_h * pp.row_len;
    float* orow = out + oh * out_w;
    if (out_w < 8) {
      _mm256_maskstore_ps(orow, first_lanes(out_w), sum(base));
      continue;
    }
    for (uint64_t j : starts) _mm256_storeu_ps(orow + j, sum(base + j));
  }
}

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

}  // namespace

bool depthwise_f32_avx2(const float* x, const float* w, const float* bias, float* y,
                        const ConvShape& s) {
  if (!cpu_has_avx2_fma()) return false;
  const WindowGeometry& g = s.g;
  const uint64_t M = s.out_channels, Mg = s.out_per_group(), P = g.out_plane();
  const uint64_t planes = g.batch * M;
  if (planes * P == 0) return true;
  const PaddedPlane pp(g);
  const std::vector<uint64_t> starts = vector_starts(g.out_w);
  const bool fast_3x3 = g.k_h == 3 && g.k_w == 3 && g.stride_h == 1 && g.dil_h == 1 && g.out_w >= 8;
  auto run = [&](uint64_t begin, uint64_t end) {
    std::vector<float> buf(pp.rows * pp.row_len + 8, 0.0f);
    for (uint64_t plane = begin; plane < end; ++plane) {
      const uint64_t n = plane / M, m = plane % M;
      fill_plane(x + (n * g.channels + m / Mg) * g.in_plane(), g, pp, buf.data());
      const float* wm = w + m * g.taps();
      const float b = bias != nullptr ? bias[m] : 0.0f;
      if (fast_3x3) {
        plane_3x3(buf.data(), pp, g, starts, wm, b, y + plane * P);
      } else {
        plane_any(buf.data(), pp, g, starts, wm, b, y + plane * P);
      }
    }
  };
  if (planes < 2 || planes * P * g.taps() < kInlineMacs) {
    run(0, planes);
  } else {
    // Chunks of a few microseconds rather than one even share per worker: a sleeping worker
    // can take tens of microseconds to wake, and the calling thread does the rest meanwhile.
    const uint64_t grain = std::max<uint64_t>(1, kChunkMacs / (P * g.taps()));
    tbb::parallel_for(
        tbb::blocked_range<uint64_t>(0, planes, grain),
        [&](const tbb::blocked_range<uint64_t>& r) { run(r.begin(), r.end()); },
        tbb::simple_partitioner());
  }
  return true;
}

#else

bool depthwise_f32_avx2(const float*, const float*, const float*, float*, const ConvShape&) {
  return false;
}

#endif

}  // namespace oi::cpu
