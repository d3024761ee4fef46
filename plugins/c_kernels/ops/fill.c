/* fill: every element of the output becomes `value`, converted to the dtype: floats round once
 * to nearest even from the double, integers keep their low bits (the caller checked the value
 * fits), bool is value != 0 (ops.md). */
#include "oik_ew.h"

#define DEF_F(T)                                                        \
  int oik_fill_##T(const oik_tensor* y, double value, oik_error* err) { \
    const uint64_t n = oik_numel(y);                                    \
    for (uint64_t i = 0; i < n; ++i) oik_std_##T(y->data, i, value);    \
    return oik_ok(err);                                                 \
  }
#define DEF_I(T)                                                         \
  int oik_fill_##T(const oik_tensor* y, int64_t value, oik_error* err) { \
    const uint64_t n = oik_numel(y);                                     \
    for (uint64_t i = 0; i < n; ++i) oik_sti_##T(y->data, i, value);     \
    return oik_ok(err);                                                  \
  }

OIK_fill_F(DEF_F) OIK_fill_I(DEF_I) OIK_fill_B(DEF_I)
