/* is_finite: one bool scalar, true iff every element is finite (ops.md). */
#include "oik_ew.h"

#define DEF_F(T)                                                                          \
  int oik_is_finite_##T(const oik_tensor* x, const oik_tensor* y, oik_error* err) {       \
    const uint64_t n = oik_numel(x);                                                      \
    int all = 1;                                                                          \
    for (uint64_t i = 0; i < n && all; ++i) all = isfinite(oik_ldc_##T(x->data, i)) != 0; \
    oik_stc_bool(y->data, 0, all);                                                        \
    return oik_ok(err);                                                                   \
  }

OIK_is_finite_F(DEF_F)
