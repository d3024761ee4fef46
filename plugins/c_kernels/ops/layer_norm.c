/* layer_norm(x, scale[, bias]) over axes `axis`..rank-1 (ops-nn.md): each row of those
 * trailing elements is normalised with its mean and population variance accumulated in f32
 * (f64 for f64), y = (x - mean) / sqrt(var + epsilon) * scale [+ bias], rounded once to the
 * output dtype; scale and bias (NULL: none) have the trailing dims. The variance is the
 * corrected two-pass one: the deviations' sum measures the rounding error of the mean, which
 * is added back, so rows far from 0 keep their precision. */
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

#define DEF(T)                                                                                 \
  int oik_layer_norm_##T(const oik_tensor* x, const oik_tensor* scale, const oik_tensor* bias, \
                         const oik_tensor* y, int64_t axis, double epsilon, oik_error* err) {  \
    typedef oik_ct_##T CT;                                                                     \
    ROWS("layer_norm")                                                                         \
    const CT n = (CT)len, eps = (CT)epsilon;                                                   \
    for (uint64_t r = 0; r < rows && len > 0; ++r) {                                           \
      const uint64_t base = r * len;                                                           \
      CT sum = 0, dev = 0, sq = 0;                                                             \
      for (uint64_t k = 0; k < len; ++k) sum += oik_ldc_##T(x->data, base + k);                \
      CT mean = sum / n;                                                                       \
      for (uint64_t k = 0; k < len; ++k) {                                                     \
        const CT d = oik_ldc_##T(x->data, base + k) - mean;                                    \
        dev += d;                                                                              \
        sq += d * d;                                                                           \
      }                                                                                        \
      CT var = sq / n;                                                                         \
      const CT c = dev / n;                                                                    \
      mean += c;                                                                               \
      var = var - c * c;                                                                       \
      if (!(var > 0)) var = 0;                                                                 \
      const CT inv = 1 / oik_sqrt(var + eps);                                                  \
      for (uint64_t k = 0; k < len; ++k) {                                                     \
        CT v = (oik_ldc_##T(x->data, base + k) - mean) * inv * oik_ldc_##T(scale->data, k);    \
        if (bias) v += oik_ldc_##T(bias->data, k);                                             \
        oik_stc_##T(y->data, base + k, v);                                                     \
      }                                                                                        \
    }                                                                                          \
    return oik_ok(err);                                                                        \
  }

OIK_layer_norm_F(DEF)
