/* max_pool(x) -> y (ops-nn.md, ONNX MaxPool): 1-D and 2-D windows with kernel, strides, pads
 * and dilations; every dtype but t1/t2, bit-exact. Padded cells never win; a NaN in a window
 * gives NaN and -0.0 counts as less than +0.0 (as max_axis; floats compare exactly in double).
 * A window that holds only padding gives the dtype's lowest value (-inf for floats). */
#include "oik_ew.h"
#include "oik_window.h"

#define DEF(T, CT, LD, ST, LOWEST, PICK)                                                           \
  int oik_max_pool_##T(const oik_tensor* x, const oik_tensor* y, const int64_t* kernel,            \
                       const int64_t* strides, const int64_t* pads, const int64_t* dilations,      \
                       oik_error* err) {                                                           \
    oik_window g;                                                                                  \
    if (!kernel)                                                                                   \
      return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,                                             \
                        "max_pool: the 'kernel' setting is required");                             \
    const int rc = oik_window_init(&g, "max_pool", x, y, kernel, strides, pads, dilations, err);   \
    if (rc) return rc;                                                                             \
    uint64_t out = 0;                                                                              \
    for (uint64_t plane = 0; plane < g.batch * g.channels; ++plane) {                              \
      const uint64_t in0 = plane * g.in_h * g.in_w;                                                \
      for (uint64_t oh = 0; oh < g.out_h; ++oh) {                                                  \
        const oik_range h = oik_valid_taps(oh * g.stride_h, g.k_h, g.dil_h, g.pad_top, g.in_h);    \
        for (uint64_t ow = 0; ow < g.out_w; ++ow, ++out) {                                         \
          const oik_range w = oik_valid_taps(ow * g.stride_w, g.k_w, g.dil_w, g.pad_left, g.in_w); \
          CT m = LOWEST;                                                                           \
          for (uint64_t kh = h.lo; kh < h.hi; ++kh)                                                \
            for (uint64_t kw = w.lo; kw < w.hi; ++kw) {                                            \
              const CT v = LD(x->data, OIK_WINDOW_TAP(g, in0, oh, ow, kh, kw));                    \
              m = PICK;                                                                            \
            }                                                                                      \
          ST(y->data, out, m);                                                                     \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return oik_ok(err);                                                                            \
  }
#define DEF_F(T) DEF(T, double, oik_ldd_##T, oik_std_##T, -INFINITY, oik_fmaxd(m, v))
#define DEF_I(T)                                                                          \
  DEF(T, int64_t, oik_ldc_##T, oik_stc_##T, oik_int_lowest(OIK_BITS_##T, OIK_SIGNED_##T), \
      oik_int_max(m, v, OIK_SIGNED_##T))

OIK_max_pool_F(DEF_F) OIK_max_pool_I(DEF_I) OIK_max_pool_B(DEF_I)
