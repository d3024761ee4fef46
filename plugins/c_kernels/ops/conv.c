/* conv(x, w[, b]) -> y (ops-nn.md, ONNX Conv): 1-D (N, C, W) and 2-D (N, C, H, W) with strides,
 * pads ([begin..., end...]), dilations and group (depthwise when group = C). Floats sum their
 * products like matmul, in f32 (f64 for f64), add the bias and round once to y's dtype; i8/u8
 * sum exactly in wrapping 64-bit arithmetic from the bias and keep y's low bits (i8/u8, or
 * i32/u32 with acc=, whose bias may be x's dtype or the accumulator's), which equals wrapping
 * accumulation at that width. b may be NULL; strides, pads and dilations may be NULL. */
#include "oik_ew.h"
#include "oik_window.h"

typedef struct {
  oik_window g;
  uint64_t out_channels, group;
} conv_shape;

static int shape_of(const oik_tensor* x, const oik_tensor* w, const oik_tensor* b,
                    const oik_tensor* y, const int64_t* strides, const int64_t* pads,
                    const int64_t* dilations, int64_t group, conv_shape* s, oik_error* err) {
  if ((x->rank != 3 && x->rank != 4) || w->rank != x->rank)
    return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,
                      "conv: x needs rank 3 or 4 and w the same rank ([M, C/group, kernel...])");
  if (group < 1 || x->dims[1] % (uint64_t)group != 0 || w->dims[0] % (uint64_t)group != 0 ||
      w->dims[1] * (uint64_t)group != x->dims[1]) {
    oik_msg m = {{0}, 0};
    oik_msg_s(&m, "conv: group ");
    oik_msg_i(&m, group);
    oik_msg_s(&m, " does not fit x's ");
    oik_msg_i(&m, (int64_t)x->dims[1]);
    oik_msg_s(&m, " channels and w's [");
    oik_msg_i(&m, (int64_t)w->dims[0]);
    oik_msg_s(&m, ", ");
    oik_msg_i(&m, (int64_t)w->dims[1]);
    oik_msg_s(&m, ", ...]");
    return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
  }
  if (b && (b->rank != 1 || b->dims[0] != w->dims[0]))
    return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,
                      "conv: the bias must be [M], one value per output channel");
  int64_t kernel[2];
  for (uint32_t i = 2; i < w->rank; ++i) {
    if (w->dims[i] == 0)
      return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT, "conv: w has an empty kernel");
    kernel[i - 2] = (int64_t)w->dims[i];
  }
  const int rc = oik_window_init(&s->g, "conv", x, y, kernel, strides, pads, dilations, err);
  if (rc) return rc;
  if (y->dims[0] != x->dims[0] || y->dims[1] != w->dims[0])
    return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT, "conv: y must be [N, M, ...]");
  s->out_channels = w->dims[0];
  s->group = (uint64_t)group;
  return OIK_OK;
}

#define MAC_F(acc, a, b) ((acc) + (a) * (b))
#define MAC_I(acc, a, b) oik_wadd(acc, oik_wmul(a, b))
#define ADD_F(a, b) ((a) + (b))

/* NAME's body: CT the compute type, LDX x's and w's loader, LDB(b, m) the bias, ST y's store. */
#define DEF(NAME, CT, LDX, LDB, ST, MAC, ADD)                                                     \
  int NAME(const oik_tensor* x, const oik_tensor* w, const oik_tensor* b, const oik_tensor* y,    \
           const int64_t* strides, const int64_t* pads, const int64_t* dilations, int64_t group,  \
           oik_error* err) {                                                                      \
    conv_shape s;                                                                                 \
    const int rc = shape_of(x, w, b, y, strides, pads, dilations, group, &s, err);                \
    if (rc) return rc;                                                                            \
    const oik_window g = s.g;                                                                     \
    const uint64_t M = s.out_channels, Mg = M / s.group, Cg = g.channels / s.group;               \
    const uint64_t taps = g.k_h * g.k_w, in_plane = g.in_h * g.in_w;                              \
    uint64_t out = 0;                                                                             \
    for (uint64_t n = 0; n < g.batch; ++n) {                                                      \
      for (uint64_t m = 0; m < M; ++m) {                                                          \
        const uint64_t c0 = (m / Mg) * Cg;                                                        \
        const CT bias = b ? (CT)LDB(b, m) : 0;                                                    \
        for (uint64_t oh = 0; oh < g.out_h; ++oh) {                                               \
          const oik_range h = oik_valid_taps(oh * g.stride_h, g.k_h, g.dil_h, g.pad_top, g.in_h); \
          for (uint64_t ow = 0; ow < g.out_w; ++ow, ++out) {                                      \
            const oik_range r =                                                                   \
                oik_valid_taps(ow * g.stride_w, g.k_w, g.dil_w, g.pad_left, g.in_w);              \
            CT acc = 0;                                                                           \
            for (uint64_t c = 0; c < Cg; ++c) {                                                   \
              const uint64_t in0 = (n * g.channels + c0 + c) * in_plane;                          \
              const uint64_t w0 = (m * Cg + c) * taps;                                            \
              for (uint64_t kh = h.lo; kh < h.hi; ++kh)                                           \
                for (uint64_t kw = r.lo; kw < r.hi; ++kw)                                         \
                  acc = MAC(acc, LDX(x->data, OIK_WINDOW_TAP(g, in0, oh, ow, kh, kw)),            \
                            LDX(w->data, w0 + kh * g.k_w + kw));                                  \
            }                                                                                     \
            ST(y->data, out, ADD(acc, bias));                                                     \
          }                                                                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
    return oik_ok(err);                                                                           \
  }

/* The bias by its dtype tag: x's dtype, or the accumulator's under acc= (exact as double). */
#define BIAS_D(b, m) oik_ldd_dt((b)->dtype, (b)->data, m)
#define BIAS_I(b, m) oik_ldi_dt((b)->dtype, (b)->data, m)
#define DEF_F(T) DEF(oik_conv_##T, oik_ct_##T, oik_ldc_##T, BIAS_D, oik_stc_##T, MAC_F, ADD_F)
#define DEF_I(T) DEF(oik_conv_##T, int64_t, oik_ldc_##T, BIAS_I, oik_stc_##T, MAC_I, oik_wadd)
#define DEF_ACC(I, O) \
  DEF(oik_conv_##I##_##O, int64_t, oik_ldi_##I, BIAS_I, oik_sti_##O, MAC_I, oik_wadd)

OIK_conv_F(DEF_F) OIK_conv_I(DEF_I) OIK_conv_ACC(DEF_ACC)
