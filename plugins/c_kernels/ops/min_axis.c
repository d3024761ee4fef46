/* min_axis: the min over `axes` (absent: all; []: none) with the min/max rules of ops.md (NaN
 * propagates, -0.0 < +0.0); an empty axis is an error (ops.md). */
#include "oik_ew.h"

#define DEF(NAME, CT, LD, ST, PICK)                                                         \
  int NAME(const oik_tensor* x, const oik_tensor* y, const int64_t* axes, int64_t num_axes, \
           oik_error* err) {                                                                \
    oik_reduce r;                                                                           \
    const int rc = oik_reduce_setup(&r, x, axes, num_axes, "min_axis", err);                \
    if (rc) return rc;                                                                      \
    if (r.count == 0 && r.out_n > 0) return oik_fail_empty_axis(err, "min_axis");           \
    OIK_REDUCE_LOOP(r, x, CT, LD, CT acc = 0, acc = e == 0 ? v : PICK, ST(y->data, o, acc)) \
    return oik_ok(err);                                                                     \
  }
#define DEF_F(T) DEF(oik_min_axis_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##T, oik_fmin(acc, v))
#define DEF_I(T) \
  DEF(oik_min_axis_##T, int64_t, oik_ldc_##T, oik_stc_##T, oik_int_min(acc, v, OIK_SIGNED_##T))

OIK_min_axis_F(DEF_F) OIK_min_axis_I(DEF_I)
