/* iota: y has x's shape and dtype, and every element is its index along `axis` (default -1);
 * floats get the index rounded once to the dtype, integers the index wrapped at the dtype's
 * width (ops-nn.md). x's values are not read. */
#include "oik_ew.h"

#define DEF(T)                                                                               \
  int oik_iota_##T(const oik_tensor* x, const oik_tensor* y, int64_t axis, oik_error* err) { \
    const int64_t a = oik_norm_axis(axis, x->rank);                                          \
    if (a < 0) return oik_fail_axis(err, "iota", axis, x->rank);                             \
    const oik_split s = oik_split_at(x, (uint32_t)a);                                        \
    const uint64_t n = s.outer * s.len * s.inner;                                            \
    for (uint64_t i = 0; i < n; ++i) {                                                       \
      const uint64_t index = i / s.inner % s.len;                                            \
      if (OIK_ISF_##T) {                                                                     \
        oik_std_##T(y->data, i, (double)index);                                              \
      } else {                                                                               \
        oik_sti_##T(y->data, i, (int64_t)index);                                             \
      }                                                                                      \
    }                                                                                        \
    return oik_ok(err);                                                                      \
  }

OIK_iota_F(DEF) OIK_iota_I(DEF)
