// Float convolution in a compute type C (f32 for f8/bf16/f16/f32, f64 for f64) over contiguous
// C arrays: im2col + matmul (OpenBLAS sgemm/dgemm through blas_matmul, else a plain loop),
// the pointwise 1x1 case without the im2col copy, and a direct loop when each output channel
// reads one input channel (depthwise; f32 through conv_depthwise_f32's AVX2 path where the CPU
// has it). Dot products accumulate in C, as matmul's do.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "blas_matmul.hpp"
#include "conv_depthwise_f32.hpp"
#include "conv_geometry.hpp"
#include "conv_simd.hpp"
#include "conv_small_f32.hpp"
#include "parallel.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace oi::cpu {

// Rows (image, channel, kh, kw) of the column matrix of `images` images, each of P outputs.
template <class C>
void im2col(const C* x, C* col, const WindowGeometry& g, uint64_t images) {
  const uint64_t P = g.out_plane();
  parallel_ranges(images * g.channels * g.taps(), P, [&](uint64_t begin, uint64_t end) {
    for (uint64_t row = begin; row < end; ++row) {
      const uint64_t tap = row % g.taps(), plane = row / g.taps();
      const uint64_t kh = tap / g.k_w, kw = tap % g.k_w;
      const C* in = x + plane * g.in_plane();
      C* out = col + row * P;
      const IndexRange h = geometry::valid_outputs(g.axis_h(), g.out_h, kh);
      const IndexRange w = geometry::valid_outputs(g.axis_w(), g.out_w, kw);
      std::fill(out, out + h.lo * g.out_w, C(0));
      for (uint64_t oh = h.lo; oh < h.hi; ++oh) {
        C* o = out + oh * g.out_w;
        const C* r = in + (oh * g.stride_h + kh * g.dil_h - g.pad_top) * g.in_w;
        const uint64_t shift = kw * g.dil_w - g.pad_left;  // wraps; only used with ow >= w.lo
        std::fill(o, o + w.lo, C(0));
        if (g.stride_w == 1) {
          std::copy(r + (w.lo + shift), r + (w.hi + shift), o + w.lo);
        } else {
          for (uint64_t ow = w.lo; ow < w.hi; ++ow) o[ow] = r[ow * g.stride_w + shift];
        }
        std::fill(o + w.hi, o + g.out_w, C(0));
      }
      std::fill(out + h.hi * g.out_w, out + P, C(0));
    }
  });
}

// The columns [p0, p0 + count) of one image's column matrix for channels [c0, c0 + channels):
// rows (channel, kh, kw), `count` values each, zero where the window leaves the input.
template <class C>
void im2col_columns(const C* x, C* col, const WindowGeometry& g, uint64_t c0, uint64_t channels,
                    uint64_t p0, uint64_t count) {
  for (uint64_t row = 0; row < channels * g.taps(); ++row) {
    const uint64_t tap = row % g.taps(), kh = tap / g.k_w, kw = tap % g.k_w;
    const C* in = x + (c0 + row / g.taps()) * g.in_plane();
    C* out = col + row * count;
    const IndexRange h = geometry::valid_outputs(g.axis_h(), g.out_h, kh);
    const IndexRange w = geometry::valid_outputs(g.axis_w(), g.out_w, kw);
    const uint64_t shift = kw * g.dil_w - g.pad_left;  // wraps; only used with ow >= w.lo
    for (uint64_t p = p0; p < p0 + count;) {           // one output row's part at a time
      const uint64_t oh = p / g.out_w, ow0 = p % g.out_w;
      const uint64_t ow1 = std::min(g.out_w, ow0 + (p0 + count - p));
      C* o = out + (p - p0) - ow0;  // o[ow] is output cell (oh, ow)
      if (oh < h.lo || oh >= h.hi) {
        std::fill(o + ow0, o + ow1, C(0));
      } else {
        const C* r = in + (oh * g.stride_h + kh * g.dil_h - g.pad_top) * g.in_w;
        const uint64_t lo = std::clamp(w.lo, ow0, ow1), hi = std::clamp(w.hi, lo, ow1);
        std::fill(o + ow0, o + lo, C(0));
        if (g.stride_w == 1) {
          std::copy(r + (lo + shift), r + (hi + shift), o + lo);
        } else {
          for (uint64_t ow = lo; ow < hi; ++ow) o[ow] = r[ow * g.stride_w + shift];
        }
        std::fill(o + hi, o + ow1, C(0));
      }
      p += ow1 - ow0;
    }
  }
}

// y = conv(x, w) through OpenBLAS in column tiles: each task builds the column matrix of a few
// hundred output cells of one image and group (within about 256 KiB, so it stays in L2) and
// multiplies it at once, instead of writing the whole column matrix to memory and reading it
// back. False where OpenBLAS is not built in.
template <class C>
bool conv_column_tiles(const C* x, const C* w, C* y, const ConvShape& s) {
  const WindowGeometry& g = s.g;
  const uint64_t G = s.group, Mg = s.out_per_group(), K = s.inner(), P = g.out_plane();
  const uint64_t Cg = s.in_per_group(), M = s.out_channels;
  constexpr uint64_t kTileBytes = uint64_t{256} << 10;
  // At least two tiles per worker where the plane allows, so that one image keeps all busy.
  const auto workers = static_cast<uint64_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const uint64_t share = (P + 2 * workers - 1) / (2 * workers) + 15;
  const uint64_t cols = std::clamp<uint64_t>(
      std::min(kTileBytes / sizeof(C) / K, std::max<uint64_t>(share, 32)) / 16 * 16, 16, P);
  const uint64_t tiles = (P + cols - 1) / cols, tasks = g.batch * G * tiles;
  bool ok = true;
  tbb::parallel_for(
      tbb::blocked_range<uint64_t>(0, tasks, 1), [&](const tbb::blocked_range<uint64_t>& r) {
        thread_local std::vector<C> col;
        if (col.size() < K * cols) col.resize(K * cols);
        for (uint64_t t = r.begin(); t < r.end(); ++t) {
          const uint64_t n = t / (G * tiles), gi = t / tiles % G, p0 = t % tiles * cols;
          const uint64_t count = std::min(cols, P - p0);
          im2col_columns(x + n * g.channels * g.in_plane(), col.data(), g, gi * Cg, Cg, p0, count);
          if (!blas_gemm<C>(w + gi * Mg * K, col.data(), y + (n * M + gi * Mg) * P + p0, Mg, K,
                            count, K, count, P))
            ok = false;
        }
      });
  return ok;
}

// out[b] = a[a_index(b)] x col[b] for b < batches, [Mg, K] x [K, P] -> [Mg, P].
template <class C>
void grouped_matmul(const C* a, const C* col, C* out, uint64_t batches, uint64_t group, uint64_t Mg,
                    uint64_t K, uint64_t P) {
  std::vector<uint64_t> a_index(batches), b_index(batches);
  for (uint64_t b = 0; b < batches; ++b) {
    a_index[b] = b % group;
    b_index[b] = b;
  }
  if (blas_matmul<C>(reinterpret_cast<const std::byte*>(a), reinterpret_cast<const std::byte*>(col),
                     reinterpret_cast<std::byte*>(out), batches, a_index.data(), b_index.data(), Mg,
                     K, P))
    return;
  parallel_ranges(batches * Mg, K * P, [&](uint64_t begin, uint64_t end) {
    for (uint64_t row = begin; row < end; ++row) {
      const uint64_t b = row / Mg, i = row % Mg;
      const C* ar = a + (a_index[b] * Mg + i) * K;
      const C* bm = col + b * K * P;
      C* o = out + row * P;
      std::fill(o, o + P, C(0));
      for (uint64_t k = 0; k < K; ++k) axpy<C>(P, ar[k], bm + k * P, o);
    }
  });
}

// Stride 1: each plane is copied once into a zero-padded buffer, and each tap is then one
// long axpy over a "wide" output whose rows have the padded width (extra columns dropped).
template <class C>
void depthwise_stride1(const C* x, const C* w, C* out, const ConvShape& s) {
  const WindowGeometry& g = s.g;
  const uint64_t M = s.out_channels, Mg = s.out_per_group(), P = g.out_plane();
  const uint64_t Hp = g.out_h + g.dil_h * (g.k_h - 1), Wp = g.out_w + g.dil_w * (g.k_w - 1);
  const uint64_t wide = g.out_h * Wp, slack = g.dil_w * (g.k_w - 1);
  parallel_ranges(g.batch * M, g.taps() * wide, [&](uint64_t begin, uint64_t end) {
    std::vector<C> pad(Hp * Wp + slack, C(0)), acc(wide);
    std::vector<uint64_t> tap_offsets;
    for (uint64_t plane = begin; plane < end; ++plane) {
      const uint64_t n = plane / M, m = plane % M;
      const C* in = x + (n * g.channels + m / Mg) * g.in_plane();
      for (uint64_t ih = 0; ih < g.in_h; ++ih)
        std::copy(in + ih * g.in_w, in + (ih + 1) * g.in_w,
                  pad.data() + (ih + g.pad_top) * Wp + g.pad_left);
      std::vector<uint64_t>& offsets = tap_offsets;
      offsets.clear();
      for (uint64_t kh = 0; kh < g.k_h; ++kh)
        for (uint64_t kw = 0; kw < g.k_w; ++kw) offsets.push_back(kh * g.dil_h * Wp + kw * g.dil_w);
      all_taps<C>(wide, w + m * g.taps(), pad.data(), offsets.data(), offsets.size(), acc.data());
      C* o = out + plane * P;
      for (uint64_t oh = 0; oh < g.out_h; ++oh)
        std::copy(acc.data() + oh * Wp, acc.data() + oh * Wp + g.out_w, o + oh * g.out_w);
    }
  });
}

// One input channel per output channel: a sliding window straight from x.
template <class C>
void depthwise(const C* x, const C* w, C* out, const ConvShape& s) {
  const WindowGeometry& g = s.g;
  const uint64_t M = s.out_channels, Mg = s.out_per_group(), P = g.out_plane();
  parallel_ranges(g.batch * M, g.taps() * P, [&](uint64_t begin, uint64_t end) {
    for (uint64_t plane = begin; plane < end; ++plane) {
      const uint64_t n = plane / M, m = plane % M;
      const C* in = x + (n * g.channels + m / Mg) * g.in_plane();
      const C* wm = w + m * g.taps();
      C* o = out + plane * P;
      std::fill(o, o + P, C(0));
      for (uint64_t kh = 0; kh < g.k_h; ++kh) {
        const IndexRange h = geometry::valid_outputs(g.axis_h(), g.out_h, kh);
        for (uint64_t kw = 0; kw < g.k_w; ++kw) {
          const IndexRange wr = geometry::valid_outputs(g.axis_w(), g.out_w, kw);
          const C wv = wm[kh * g.k_w + kw];
          const uint64_t shift = kw * g.dil_w - g.pad_left;  // wraps; used with ow >= wr.lo
          for (uint64_t oh = h.lo; oh < h.hi; ++oh) {
            const C* r = in + (oh * g.stride_h + kh * g.dil_h - g.pad_top) * g.in_w;
            C* orow = o + oh * g.out_w;
            if (g.stride_w == 1) {
              // r + (wr.lo + shift) is the input cell of output wr.lo
              axpy<C>(wr.hi - wr.lo, wv, r + (wr.lo + shift), orow + wr.lo);
            } else {
              for (uint64_t ow = wr.lo; ow < wr.hi; ++ow)
                orow[ow] += wv * r[ow * g.stride_w + shift];
            }
          }
        }
      }
    }
  });
}

// y [N, M, P] = conv(x [N, C, in...], w [M, C/group, taps]) + bias (nullptr: none).
template <class C>
void conv_compute(const C* x, const C* w, const C* bias, C* y, const ConvShape& s) {
  const WindowGeometry& g = s.g;
  const uint64_t M = s.out_channels, G = s.group, P = g.out_plane();
  const uint64_t Mg = s.out_per_group(), K = s.inner();
  if (g.batch * M * P == 0) return;
  if constexpr (std::is_same_v<C, float>) {
    if (s.in_per_group() == 1 && g.taps() > 1 && depthwise_f32_avx2(x, w, bias, y, s)) return;
    // Few output cells (a streaming model's step): dot products of w's rows in place.
    if (s.in_per_group() > 1 && P <= kSmallConvCells && conv_small_f32(x, w, bias, y, s)) return;
  }
  if (s.in_per_group() == 1 && g.taps() > 1 && g.stride_h == 1 && g.stride_w == 1) {
    depthwise_stride1(x, w, y, s);
  } else if (s.in_per_group() == 1 && g.taps() > 1) {
    depthwise(x, w, y, s);
  } else if (g.taps() == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
             g.pad_left == 0 && P == g.in_plane()) {
    grouped_matmul(w, x, y, g.batch * G, G, Mg, K, P);  // x is already the column matrix
  } else if (M * K * P >= (uint64_t{1} << 16) && conv_column_tiles(x, w, y, s)) {
    // done: column tiles through OpenBLAS
  } else {
    // Images in chunks, so the column matrix stays within about 32 MiB.
    const uint64_t per_image = std::max<uint64_t>(1, g.channels * g.taps() * P);
    const uint64_t chunk = std::max<uint64_t>(1, (uint64_t{32} << 20) / sizeof(C) / per_image);
    std::vector<C> col(std::min(chunk, g.batch) * per_image);
    for (uint64_t n0 = 0; n0 < g.batch; n0 += chunk) {
      const uint64_t nb = std::min(chunk, g.batch - n0);
      im2col(x + n0 * g.channels * g.in_plane(), col.data(), g, nb);
      grouped_matmul(w, col.data(), y + n0 * M * P, nb * G, G, Mg, K, P);
    }
  }
  if (bias != nullptr) {
    parallel_ranges(g.batch * M, P, [&](uint64_t begin, uint64_t end) {
      for (uint64_t plane = begin; plane < end; ++plane) {
        add_scalar<C>(P, bias[plane % M], y + plane * P);
      }
    });
  }
}

}  // namespace oi::cpu
