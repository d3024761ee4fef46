/* The shared loop of argmax_axis and argmin_axis: OIK_ARG_REDUCE(OP, T, CT, LD, BETTER) defines
 * oik_OP_T, which keeps the first (select_first) or last index whose value is BETTER than the
 * best so far, a NaN its first index; an empty axis is an error, a rank-0 input gives 0. */
#ifndef OIK_ARG_REDUCE_H
#define OIK_ARG_REDUCE_H

#include "oik_ew.h"

#define OIK_ARG_REDUCE(OP, T, CT, LD, BETTER)                                                  \
  int oik_##OP##_##T(const oik_tensor* x, const oik_tensor* y, int64_t axis, int select_first, \
                     oik_error* err) {                                                         \
    uint32_t along = 0;                                                                        \
    oik_split s = {1, 1, 1};                                                                   \
    if (x->rank > 0) {                                                                         \
      const int64_t a = oik_norm_axis(axis, x->rank);                                          \
      if (a < 0) return oik_fail_axis(err, #OP, axis, x->rank);                                \
      along = (uint32_t)a;                                                                     \
      s = oik_split_at(x, along);                                                              \
    }                                                                                          \
    if (s.len == 0 && s.outer * s.inner > 0) return oik_fail_empty_axis(err, #OP);             \
    for (uint64_t o = 0; o < s.outer * s.inner; ++o) {                                         \
      const uint64_t base = (o / s.inner) * s.len * s.inner + o % s.inner;                     \
      CT best = 0;                                                                             \
      int64_t index = 0;                                                                       \
      for (uint64_t k = 0; k < s.len; ++k) {                                                   \
        const CT v = LD(x->data, base + k * s.inner);                                          \
        if (v != v) { /* a NaN wins at its first index */                                      \
          index = (int64_t)k;                                                                  \
          break;                                                                               \
        }                                                                                      \
        if (k == 0 || BETTER || (!select_first && v == best)) {                                \
          best = v;                                                                            \
          index = (int64_t)k;                                                                  \
        }                                                                                      \
      }                                                                                        \
      oik_stc_i64(y->data, o, index);                                                          \
    }                                                                                          \
    return oik_ok(err);                                                                        \
  }

#endif /* OIK_ARG_REDUCE_H */
