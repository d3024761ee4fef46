/* prod_axis: the product over `axes` (absent: all; []: none); 1 over an empty axis (ops.md).
 * Each output folds its inputs in row-major order: floats in f32 (f64 for f64) rounded once to
 * the output dtype, integers wrapping at the acc= width when given. */
#include "oik_ew.h"

#define DEF(NAME, CT, LD, ST, MUL)                                                          \
  int NAME(const oik_tensor* x, const oik_tensor* y, const int64_t* axes, int64_t num_axes, \
           oik_error* err) {                                                                \
    oik_reduce r;                                                                           \
    const int rc = oik_reduce_setup(&r, x, axes, num_axes, "prod_axis", err);               \
    if (rc) return rc;                                                                      \
    OIK_REDUCE_LOOP(r, x, CT, LD, CT acc = 1, acc = MUL(acc, v), ST(y->data, o, acc))       \
    return oik_ok(err);                                                                     \
  }
#define MUL_F(acc, v) ((acc) * (v))
#define DEF_F(T) DEF(oik_prod_axis_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##T, MUL_F)
#define DEF_I(T) DEF(oik_prod_axis_##T, int64_t, oik_ldc_##T, oik_stc_##T, oik_wmul)
#define DEF_ACC(I, O) DEF(oik_prod_axis_##I##_##O, int64_t, oik_ldi_##I, oik_sti_##O, oik_wmul)

OIK_prod_axis_F(DEF_F) OIK_prod_axis_I(DEF_I) OIK_prod_axis_ACC(DEF_ACC)
