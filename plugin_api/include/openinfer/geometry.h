/* The arithmetic of ONNX Slice ranges and of the sliding windows of conv and the pools, once for
 * every user: C11 and C++ (header-only, no allocation, no global state, <stdint.h> only). The
 * C++ headers openinfer/slice_range.hpp and openinfer/window.hpp wrap it for the validator's
 * shape rules, both backends and both emitters; the C kernel library (plugins/c_kernels) and the
 * programs the C target generates (which compute shapes at run time) include it as C. In C++
 * the functions are constexpr.
 *
 * Slice (one axis of `dim` indices): a start, end and step (never 0); negative starts/ends
 * count from the end and are then clamped to [0, dim] (step > 0) or [-1, dim - 1] (step < 0);
 * the result is the first index read, the step and the number of indices visited.
 *
 * Window (one spatial axis of `in` cells): a kernel of `kernel` taps `dilation` apart, moved by
 * `stride`, over the input padded with `pad_begin` and `pad_end` cells (ops-nn.md, ONNX floor
 * mode):
 *   out = floor((in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride) + 1,
 * and output cell o, tap t reads input cell o * stride + t * dilation - pad_begin (a padded cell
 * when that is outside [0, in)). kernel, stride and dilation are at least 1. */
#ifndef OPENINFER_GEOMETRY_H
#define OPENINFER_GEOMETRY_H

#include <stdint.h>

#ifdef __cplusplus
#define OI_GEOMETRY_FN constexpr
#else
#define OI_GEOMETRY_FN static inline
#endif

/* One sliced axis: the first index read, the step between reads and how many are read. */
typedef struct oi_slice_axis_range {
  int64_t start;
  int64_t step;
  uint64_t count;
} oi_slice_axis_range;

/* The range of one axis of `dim` indices; `step` must not be 0. An empty result starts at the
 * clamped start (0 on an empty axis). */
OI_GEOMETRY_FN oi_slice_axis_range oi_slice_axis(int64_t start, int64_t end, int64_t step,
                                                 uint64_t dim) {
  const int64_t d = (int64_t)dim;
  int64_t b = start, e = end;
  oi_slice_axis_range r = {0, step, 0};
  if (b < 0) b = b < -d ? -1 : b + d;
  if (e < 0) e = e < -d ? -1 : e + d;
  if (step > 0) {
    b = b < 0 ? 0 : b > d ? d : b;
    e = e < 0 ? 0 : e > d ? d : e;
    if (e > b) r.count = (uint64_t)((e - b - 1) / step + 1);
    r.start = b;
  } else if (d > 0) {
    b = b < 0 ? 0 : b > d - 1 ? d - 1 : b;
    e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
    /* -step as unsigned: INT64_MIN has no positive int64. */
    if (b > e) r.count = (uint64_t)(b - e - 1) / (0 - (uint64_t)step) + 1;
    r.start = b;
  }
  return r;
}

/* One spatial axis of a window. */
typedef struct oi_window_axis {
  uint64_t in, kernel, stride, dilation, pad_begin, pad_end;
} oi_window_axis;

/* The padded input's cells. */
OI_GEOMETRY_FN uint64_t oi_window_padded(oi_window_axis a) {
  return a.in + a.pad_begin + a.pad_end;
}

/* Input cells one window covers, first tap to last. */
OI_GEOMETRY_FN uint64_t oi_window_span(oi_window_axis a) {
  return a.dilation * (a.kernel - 1) + 1;
}

/* The window fits the padded input at least once. */
OI_GEOMETRY_FN int oi_window_fits(oi_window_axis a) {
  return oi_window_padded(a) >= oi_window_span(a);
}

/* A valid axis: the window fits, or the axis is empty (ops-nn.md: an empty result, never an
 * error, even where no window would fit). */
OI_GEOMETRY_FN int oi_window_valid(oi_window_axis a) {
  return oi_window_fits(a) || a.in == 0;
}

/* Output cells: 0 where the window does not fit. */
OI_GEOMETRY_FN uint64_t oi_window_output(oi_window_axis a) {
  return oi_window_fits(a) ? (oi_window_padded(a) - oi_window_span(a)) / a.stride + 1 : 0;
}

/* A half-open range [lo, hi). */
typedef struct oi_index_range {
  uint64_t lo, hi;
} oi_index_range;

/* The outputs o < out whose tap `tap` reads inside the input:
 * o * stride + tap * dilation >= pad_begin and < pad_begin + in. */
OI_GEOMETRY_FN oi_index_range oi_window_valid_outputs(oi_window_axis a, uint64_t out,
                                                      uint64_t tap) {
  const uint64_t off = tap * a.dilation, s = a.stride, pad = a.pad_begin;
  const uint64_t lo = off >= pad ? 0 : (pad - off + s - 1) / s;
  uint64_t hi = pad + a.in > off ? (pad + a.in - off + s - 1) / s : 0;
  oi_index_range r = {0, 0};
  if (hi > out) hi = out;
  r.lo = lo < hi ? lo : hi;
  r.hi = hi;
  return r;
}

/* The taps t < kernel of output cell `o` that read inside the input. */
OI_GEOMETRY_FN oi_index_range oi_window_valid_taps(oi_window_axis a, uint64_t o) {
  const uint64_t start = o * a.stride, d = a.dilation, pad = a.pad_begin;
  const uint64_t lo = start >= pad ? 0 : (pad - start + d - 1) / d;
  uint64_t hi = start >= pad + a.in ? 0 : (pad + a.in - start + d - 1) / d;
  oi_index_range r = {0, 0};
  if (hi > a.kernel) hi = a.kernel;
  r.lo = lo < hi ? lo : hi;
  r.hi = hi;
  return r;
}

#undef OI_GEOMETRY_FN

#endif
