/* The window geometry shared by conv, max_pool and avg_pool (ops-nn.md): x is [N, C, W] or
 * [N, C, H, W]; a 1-D op runs as a 2-D one with H = 1, a one-tap kernel and no padding on H.
 * strides, pads and dilations may be NULL (1, 0 and 1 on every spatial axis). The caller
 * validated the settings, but a bad call still gets the CPU backend's error instead of a read
 * outside the tensor. */
#ifndef OIK_WINDOW_H
#define OIK_WINDOW_H

#include "oik_base.h"
#include "openinfer/geometry.h" /* the SDK's window arithmetic, shared with every user */

typedef struct oik_window {
  uint64_t batch, channels; /* N and C of x */
  uint64_t in_h, in_w;      /* input spatial size */
  uint64_t out_h, out_w;    /* output spatial size (from y) */
  uint64_t k_h, k_w;        /* kernel taps */
  uint64_t stride_h, stride_w, dil_h, dil_w;
  uint64_t pad_top, pad_left; /* begin pads; end pads only bound the output size */
} oik_window;

OIK_INLINE int oik_window_entry_check(const char* op, const char* name, const int64_t* v,
                                      uint32_t count, int64_t minimum, oik_error* err) {
  for (uint32_t i = 0; v && i < count; ++i) {
    if (v[i] < minimum) {
      oik_msg m = {{0}, 0};
      oik_msg_s(&m, op);
      oik_msg_s(&m, ": '");
      oik_msg_s(&m, name);
      oik_msg_s(&m, "' entry ");
      oik_msg_i(&m, v[i]);
      oik_msg_s(&m, " is below ");
      oik_msg_i(&m, minimum);
      return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
    }
  }
  return OIK_OK;
}

/* kernel: the taps per spatial axis (rank - 2 entries). */
OIK_INLINE int oik_window_init(oik_window* g, const char* op, const oik_tensor* x,
                               const oik_tensor* y, const int64_t* kernel, const int64_t* strides,
                               const int64_t* pads, const int64_t* dilations, oik_error* err) {
  if ((x->rank != 3 && x->rank != 4) || y->rank != x->rank) {
    oik_msg m = {{0}, 0};
    oik_msg_s(&m, op);
    oik_msg_s(&m, ": x and y need rank 3 (N, C, W) or 4 (N, C, H, W)");
    return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
  }
  const uint32_t n = x->rank - 2;
  int rc = oik_window_entry_check(op, "kernel", kernel, n, 1, err);
  if (!rc) rc = oik_window_entry_check(op, "strides", strides, n, 1, err);
  if (!rc) rc = oik_window_entry_check(op, "dilations", dilations, n, 1, err);
  if (!rc) rc = oik_window_entry_check(op, "pads", pads, 2 * n, 0, err);
  if (rc) return rc;
  g->batch = x->dims[0];
  g->channels = x->dims[1];
  g->in_h = g->in_w = g->out_h = g->out_w = g->k_h = g->k_w = 1;
  g->stride_h = g->stride_w = g->dil_h = g->dil_w = 1;
  g->pad_top = g->pad_left = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const int is_w = i == n - 1;
    const uint64_t in = x->dims[2 + i], out = y->dims[2 + i];
    const uint64_t k = (uint64_t)kernel[i];
    const uint64_t s = strides ? (uint64_t)strides[i] : 1,
                   d = dilations ? (uint64_t)dilations[i] : 1;
    const uint64_t pb = pads ? (uint64_t)pads[i] : 0, pe = pads ? (uint64_t)pads[n + i] : 0;
    const oi_window_axis a = {in, k, s, d, pb, pe};
    /* An empty axis gives an empty result (ops-nn.md), whatever the window. */
    const int too_small = !oi_window_valid(a);
    const uint64_t want = oi_window_output(a);
    if (too_small || out != want) {
      oik_msg m = {{0}, 0};
      oik_msg_s(&m, op);
      oik_msg_s(&m, ": spatial axis ");
      oik_msg_i(&m, i);
      oik_msg_s(&m, " of y has ");
      oik_msg_i(&m, (int64_t)out);
      oik_msg_s(&m, " cells, the window geometry gives ");
      if (too_small) {
        oik_msg_s(&m, "none (window larger than the padded input)");
      } else {
        oik_msg_i(&m, (int64_t)want);
      }
      return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
    }
    *(is_w ? &g->in_w : &g->in_h) = in;
    *(is_w ? &g->out_w : &g->out_h) = out;
    *(is_w ? &g->k_w : &g->k_h) = k;
    *(is_w ? &g->stride_w : &g->stride_h) = s;
    *(is_w ? &g->dil_w : &g->dil_h) = d;
    *(is_w ? &g->pad_left : &g->pad_top) = pb;
  }
  return OIK_OK;
}

/* [lo, hi) of the taps t < k with 0 <= start + t*d - pad < in (start = o * stride: stride 1 and
 * output cell `start` in the SDK's terms). */
typedef oi_index_range oik_range;

OIK_INLINE oik_range oik_valid_taps(uint64_t start, uint64_t k, uint64_t d, uint64_t pad,
                                    uint64_t in) {
  const oi_window_axis a = {in, k, 1, d, pad, 0};
  return oi_window_valid_taps(a, start);
}

/* Visits every output cell of every (image, channel) plane: OUT is the output element index,
 * IN0 the plane's first input element, H and W the valid tap ranges. BODY uses
 * OIK_WINDOW_TAP(g, IN0, oh, ow, kh, kw) for a tap's input element index. */
#define OIK_WINDOW_TAP(g, in0, oh, ow, kh, kw)                                 \
  ((in0) + ((oh) * (g).stride_h + (kh) * (g).dil_h - (g).pad_top) * (g).in_w + \
   (ow) * (g).stride_w + (kw) * (g).dil_w - (g).pad_left)

#endif
