/* sum_axis: the sum over `axes` (absent: all; []: none), keepdims only shapes the output; 0 over
 * an empty axis, a float sum of only -0.0 terms -0.0 (ops.md). Each output folds its inputs in
 * row-major order: floats in f32 (f64 for f64) rounded once to the output dtype, integers wrapping
 * at the acc= width when given. */
#include "oik_ew.h"

#define DEF(NAME, CT, LD, ST, ADD, START)                                                   \
  int NAME(const oik_tensor* x, const oik_tensor* y, const int64_t* axes, int64_t num_axes, \
           oik_error* err) {                                                                \
    oik_reduce r;                                                                           \
    const int rc = oik_reduce_setup(&r, x, axes, num_axes, "sum_axis", err);                \
    if (rc) return rc;                                                                      \
    OIK_REDUCE_LOOP(r, x, CT, LD, CT acc = START, acc = ADD(acc, v), ST(y->data, o, acc))   \
    return oik_ok(err);                                                                     \
  }
#define ADD_F(acc, v) ((acc) + (v))
#define DEF_F(T)                                                     \
  DEF(oik_sum_axis_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##T, ADD_F, \
      OIK_SUM_START(oik_ct_##T, r.count))
#define DEF_I(T) DEF(oik_sum_axis_##T, int64_t, oik_ldc_##T, oik_stc_##T, oik_wadd, 0)
#define DEF_ACC(I, O) DEF(oik_sum_axis_##I##_##O, int64_t, oik_ldi_##I, oik_sti_##O, oik_wadd, 0)

OIK_sum_axis_F(DEF_F) OIK_sum_axis_I(DEF_I) OIK_sum_axis_ACC(DEF_ACC)
