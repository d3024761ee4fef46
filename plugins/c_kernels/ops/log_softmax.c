/* log_softmax over `axis` (default -1), F dtypes (ops-nn.md): per slice along the axis, m = max
 * (NaN propagates), s = the sum of e^(x - m) accumulated in f32 (f64 for f64), then
 * (x - m) - log(s), rounded once to the output dtype. Subtracting m keeps e^ from overflowing. */
#include "oik_ew.h"

#define DEF(T)                                                                    \
  int oik_log_softmax_##T(const oik_tensor* x, const oik_tensor* y, int64_t axis, \
                          oik_error* err) {                                       \
    typedef oik_ct_##T CT;                                                        \
    const int64_t a = oik_norm_axis(axis, x->rank);                               \
    if (a < 0) return oik_fail_axis(err, "log_softmax", axis, x->rank);           \
    const oik_split s = oik_split_at(x, (uint32_t)a);                             \
    for (uint64_t r = 0; r < s.outer * s.inner; ++r) {                            \
      const uint64_t base = (r / s.inner) * s.len * s.inner + r % s.inner;        \
      CT m = -INFINITY;                                                           \
      for (uint64_t k = 0; k < s.len && m == m; ++k) {                            \
        const CT v = oik_ldc_##T(x->data, base + k * s.inner);                    \
        if (v > m || v != v) m = v;                                               \
      }                                                                           \
      CT sum = 0;                                                                 \
      for (uint64_t k = 0; k < s.len; ++k)                                        \
        sum += oik_exp(oik_ldc_##T(x->data, base + k * s.inner) - m);             \
      const CT log_sum = oik_log(sum);                                            \
      for (uint64_t k = 0; k < s.len; ++k) {                                      \
        const CT v = oik_ldc_##T(x->data, base + k * s.inner);                    \
        oik_stc_##T(y->data, base + k * s.inner, (v - m) - log_sum);              \
      }                                                                           \
    }                                                                             \
    return oik_ok(err);                                                           \
  }

OIK_log_softmax_F(DEF)
