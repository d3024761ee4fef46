/* dequantize(x, scale[, zero_point]) (ops-nn.md): y = (x - zero_point) * scale with x i8, u8,
 * i4 or u4 (packed i4/u4 read in place), scale a scalar or 1-D along `axis` (default 1) and
 * zero_point (NULL: 0) of scale's shape and x's dtype; y has scale's dtype. The difference is
 * an exact integer; it is multiplied by scale in f32 (f64 for f64) and the product rounded once
 * to y's dtype. */
#include "oik_ew.h"

#define DEF(X, S)                                                                               \
  int oik_dequantize_##X##_##S(const oik_tensor* x, const oik_tensor* scale,                    \
                               const oik_tensor* zero_point, const oik_tensor* y, int64_t axis, \
                               oik_error* err) {                                                \
    typedef oik_ct_##S CT;                                                                      \
    uint64_t len = 1, inner = oik_numel(x);                                                     \
    if (scale->rank == 1) {                                                                     \
      const int64_t a = oik_norm_axis(axis, x->rank);                                           \
      if (a < 0) return oik_fail_axis(err, "dequantize", axis, x->rank);                        \
      const oik_split s = oik_split_at(x, (uint32_t)a);                                         \
      len = s.len;                                                                              \
      inner = s.inner;                                                                          \
    }                                                                                           \
    const uint64_t runs = inner == 0 ? 0 : oik_numel(x) / inner;                                \
    for (uint64_t r = 0; r < runs; ++r) {                                                       \
      const uint64_t c = r % len, first = r * inner;                                            \
      const CT s = oik_ldc_##S(scale->data, c);                                                 \
      const int64_t z = zero_point ? oik_ldi_##X(zero_point->data, c) : 0;                      \
      for (uint64_t i = first; i < first + inner; ++i)                                          \
        oik_stc_##S(y->data, i, (CT)(oik_ldi_##X(x->data, i) - z) * s);                         \
    }                                                                                           \
    return oik_ok(err);                                                                         \
  }

OIK_dequantize_PAIRS(DEF)
