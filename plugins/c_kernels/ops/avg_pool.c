/* avg_pool(x) -> y (ops-nn.md, ONNX AveragePool): 1-D and 2-D windows with kernel, strides and
 * pads; F dtypes. The window's input cells are summed in f32 (f64 for f64) and divided by their
 * count, or by the whole kernel size with count_include_pad (padded cells add zero); one
 * rounding to y's dtype. A window of padding only, not counted, gives 0/0 = NaN. */
#include "oik_ew.h"
#include "oik_window.h"

#define DEF(T)                                                                                     \
  int oik_avg_pool_##T(const oik_tensor* x, const oik_tensor* y, const int64_t* kernel,            \
                       const int64_t* strides, const int64_t* pads, int count_include_pad,         \
                       oik_error* err) {                                                           \
    typedef oik_ct_##T CT;                                                                         \
    oik_window g;                                                                                  \
    if (!kernel)                                                                                   \
      return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,                                             \
                        "avg_pool: the 'kernel' setting is required");                             \
    const int rc = oik_window_init(&g, "avg_pool", x, y, kernel, strides, pads, NULL, err);        \
    if (rc) return rc;                                                                             \
    uint64_t out = 0;                                                                              \
    for (uint64_t plane = 0; plane < g.batch * g.channels; ++plane) {                              \
      const uint64_t in0 = plane * g.in_h * g.in_w;                                                \
      for (uint64_t oh = 0; oh < g.out_h; ++oh) {                                                  \
        const oik_range h = oik_valid_taps(oh * g.stride_h, g.k_h, g.dil_h, g.pad_top, g.in_h);    \
        for (uint64_t ow = 0; ow < g.out_w; ++ow, ++out) {                                         \
          const oik_range w = oik_valid_taps(ow * g.stride_w, g.k_w, g.dil_w, g.pad_left, g.in_w); \
          CT sum = 0;                                                                              \
          for (uint64_t kh = h.lo; kh < h.hi; ++kh)                                                \
            for (uint64_t kw = w.lo; kw < w.hi; ++kw)                                              \
              sum += oik_ldc_##T(x->data, OIK_WINDOW_TAP(g, in0, oh, ow, kh, kw));                 \
          const uint64_t count =                                                                   \
              count_include_pad ? g.k_h * g.k_w : (h.hi - h.lo) * (w.hi - w.lo);                   \
          oik_stc_##T(y->data, out, sum / (CT)count);                                              \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return oik_ok(err);                                                                            \
  }

OIK_avg_pool_F(DEF)
