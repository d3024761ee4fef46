/* rms_norm(x, scale) over axes `axis`..rank-1 (ops-nn.md): y = x / sqrt(mean(x^2) + epsilon)
 * * scale, the mean of squares accumulated in f32 (f64 for f64), each result rounded once to
 * the output dtype; scale has the trailing dims. */
#include "oik_ew.h"

#define ROWS(OP)                                           \
  const int64_t a = oik_norm_axis(axis, x->rank);          \
  if (a < 0) return oik_fail_axis(err, OP, axis, x->rank); \
  uint64_t rows = 1, len = 1;                              \
  for (uint32_t k = 0; k < x->rank; ++k) {                 \
    if (k < (uint32_t)a) {                                 \
      rows *= x->dims[k];                                  \
    } else {                                               \
      len *= x->dims[k];                                   \
    }                                                      \
  }

#define DEF(T)                                                                            \
  int oik_rms_norm_##T(const oik_tensor* x, const oik_tensor* scale, const oik_tensor* y, \
                       int64_t axis, double epsilon, oik_error* err) {                    \
    typedef oik_ct_##T CT;                                                                \
    ROWS("rms_norm")                                                                      \
    const CT n = (CT)len, eps = (CT)epsilon;                                              \
    for (uint64_t r = 0; r < rows && len > 0; ++r) {                                      \
      const uint64_t base = r * len;                                                      \
      CT sq = 0;                                                                          \
      for (uint64_t k = 0; k < len; ++k) {                                                \
        const CT d = oik_ldc_##T(x->data, base + k);                                      \
        sq += d * d;                                                                      \
      }                                                                                   \
      const CT inv = 1 / oik_sqrt(sq / n + eps);                                          \
      for (uint64_t k = 0; k < len; ++k)                                                  \
        oik_stc_##T(y->data, base + k,                                                    \
                    oik_ldc_##T(x->data, base + k) * inv * oik_ldc_##T(scale->data, k));  \
    }                                                                                     \
    return oik_ok(err);                                                                   \
  }

OIK_rms_norm_F(DEF)
