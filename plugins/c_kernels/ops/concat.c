/* concat: 1 to 16 inputs of one dtype joined along `axis` (default 0; negative counts from the
 * end); other dims equal (ops-nn.md). Every dtype but t1/t2, bit-exact. Per index before the
 * axis, each input contributes one contiguous run of (its axis size x the inner size)
 * elements. */
#include "oik_ew.h"

#define DEF(T)                                                                              \
  int oik_concat_##T(const oik_tensor* const* xs, uint32_t num_inputs, const oik_tensor* y, \
                     int64_t axis, oik_error* err) {                                        \
    const int64_t a = oik_norm_axis(axis, y->rank);                                         \
    if (a < 0) return oik_fail_axis(err, "concat", axis, y->rank);                          \
    const oik_split whole = oik_split_at(y, (uint32_t)a);                                   \
    const uint64_t row = whole.len * whole.inner;                                           \
    for (uint64_t o = 0; o < whole.outer; ++o) {                                            \
      uint64_t at = 0;                                                                      \
      for (uint32_t j = 0; j < num_inputs; ++j) {                                           \
        const uint64_t run = xs[j]->dims[a] * whole.inner;                                  \
        OIK_MOVE(T, y->data, o* row + at, xs[j]->data, o * run, run);                       \
        at += run;                                                                          \
      }                                                                                     \
    }                                                                                       \
    return oik_ok(err);                                                                     \
  }

OIK_concat_F(DEF) OIK_concat_I(DEF) OIK_concat_B(DEF)
