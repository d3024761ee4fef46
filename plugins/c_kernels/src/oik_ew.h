/* Definers of elementwise entry points. An op file writes its rule once per dtype class as a
 * macro EXPR(a, [b, [c,]] T) over values of the compute type (T: the dtype token the op
 * computes in, the acc= dtype for accumulate kernels) and instantiates it over the dtype lists
 * of oik_variants.h:
 *
 *   #define ADD_F(a, b, T) ((a) + (b))
 *   #define DEF_F(T) OIK_EW2_SAME(add, T, ADD_F)
 *   OIK_add_F(DEF_F)
 *
 * OIK_EWn(NAME, CT, LD, ST, EXPR, T) is the general form: inputs loaded with LD into CT, the
 * result stored with ST. Binary and ternary ops broadcast (numpy); unary ops map element i to
 * element i. In place is safe: each output element is written after its inputs are read. */
#ifndef OIK_EW_H
#define OIK_EW_H

#include "oi_kernels.h"
#include "oik_dtype.h"
#include "oik_iter.h"
#include "oik_variants.h"

#define OIK_EW1(NAME, CT, LD, ST, EXPR, T)                             \
  int NAME(const oik_tensor* x, const oik_tensor* y, oik_error* err) { \
    const uint64_t n = oik_numel(y);                                   \
    for (uint64_t i = 0; i < n; ++i) {                                 \
      const CT a = LD(x->data, i);                                     \
      ST(y->data, i, EXPR(a, T));                                      \
    }                                                                  \
    return oik_ok(err);                                                \
  }

#define OIK_EW2(NAME, CT, LD, ST, EXPR, T)                                                    \
  int NAME(const oik_tensor* x0, const oik_tensor* x1, const oik_tensor* y, oik_error* err) { \
    const oik_tensor* ins[2] = {x0, x1};                                                      \
    oik_walk w;                                                                               \
    const int rc = oik_walk_init(&w, y, 2, ins, err);                                         \
    if (rc) return rc;                                                                        \
    for (; w.o < w.n; oik_walk_next(&w)) {                                                    \
      const CT a = LD(x0->data, w.in[0]);                                                     \
      const CT b = LD(x1->data, w.in[1]);                                                     \
      ST(y->data, w.o, EXPR(a, b, T));                                                        \
    }                                                                                         \
    return oik_ok(err);                                                                       \
  }

#define OIK_EW3(NAME, CT, LD, ST, EXPR, T)                                                        \
  int NAME(const oik_tensor* x0, const oik_tensor* x1, const oik_tensor* x2, const oik_tensor* y, \
           oik_error* err) {                                                                      \
    const oik_tensor* ins[3] = {x0, x1, x2};                                                      \
    oik_walk w;                                                                                   \
    const int rc = oik_walk_init(&w, y, 3, ins, err);                                             \
    if (rc) return rc;                                                                            \
    for (; w.o < w.n; oik_walk_next(&w)) {                                                        \
      const CT a = LD(x0->data, w.in[0]);                                                         \
      const CT b = LD(x1->data, w.in[1]);                                                         \
      const CT c = LD(x2->data, w.in[2]);                                                         \
      ST(y->data, w.o, EXPR(a, b, c, T));                                                         \
    }                                                                                             \
    return oik_ok(err);                                                                           \
  }

/* The same with extra parameters after the tensors: PARAMS is a parenthesised parameter list
 * such as (int has_mask, double mask), which EXPR may use by name. */
#define OIK_UNPACK(...) __VA_ARGS__

#define OIK_EW1_P(NAME, PARAMS, CT, LD, ST, EXPR, T)                                      \
  int NAME(const oik_tensor* x, const oik_tensor* y, OIK_UNPACK PARAMS, oik_error* err) { \
    const uint64_t n = oik_numel(y);                                                      \
    for (uint64_t i = 0; i < n; ++i) {                                                    \
      const CT a = LD(x->data, i);                                                        \
      ST(y->data, i, EXPR(a, T));                                                         \
    }                                                                                     \
    return oik_ok(err);                                                                   \
  }

#define OIK_EW2_P(NAME, PARAMS, CT, LD, ST, EXPR, T)                                           \
  int NAME(const oik_tensor* x0, const oik_tensor* x1, const oik_tensor* y, OIK_UNPACK PARAMS, \
           oik_error* err) {                                                                   \
    const oik_tensor* ins[2] = {x0, x1};                                                       \
    oik_walk w;                                                                                \
    const int rc = oik_walk_init(&w, y, 2, ins, err);                                          \
    if (rc) return rc;                                                                         \
    for (; w.o < w.n; oik_walk_next(&w)) {                                                     \
      const CT a = LD(x0->data, w.in[0]);                                                      \
      const CT b = LD(x1->data, w.in[1]);                                                      \
      ST(y->data, w.o, EXPR(a, b, T));                                                         \
    }                                                                                          \
    return oik_ok(err);                                                                        \
  }

/* oik_<op>_<T>: inputs and output of dtype T, computed in T's compute type. */
#define OIK_EW1_SAME(OP, T, EXPR) \
  OIK_EW1(oik_##OP##_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##T, EXPR, T)
#define OIK_EW2_SAME(OP, T, EXPR) \
  OIK_EW2(oik_##OP##_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##T, EXPR, T)
#define OIK_EW3_SAME(OP, T, EXPR) \
  OIK_EW3(oik_##OP##_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##T, EXPR, T)

/* oik_<op>_<T>: inputs of dtype T, the output of dtype TO (comparisons: bool). */
#define OIK_EW1_TO(OP, T, TO, EXPR) \
  OIK_EW1(oik_##OP##_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##TO, EXPR, T)
#define OIK_EW2_TO(OP, T, TO, EXPR) \
  OIK_EW2(oik_##OP##_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##TO, EXPR, T)

#define OIK_EW1_SAME_P(OP, T, PARAMS, EXPR) \
  OIK_EW1_P(oik_##OP##_##T, PARAMS, oik_ct_##T, oik_ldc_##T, oik_stc_##T, EXPR, T)
#define OIK_EW2_SAME_P(OP, T, PARAMS, EXPR) \
  OIK_EW2_P(oik_##OP##_##T, PARAMS, oik_ct_##T, oik_ldc_##T, oik_stc_##T, EXPR, T)

/* oik_<op>_<I>_<O>: acc= kernels, integer inputs of dtype I widened exactly to O. */
#define OIK_EW1_ACC(OP, I, O, EXPR) \
  OIK_EW1(oik_##OP##_##I##_##O, int64_t, oik_ldi_##I, oik_sti_##O, EXPR, O)
#define OIK_EW2_ACC(OP, I, O, EXPR) \
  OIK_EW2(oik_##OP##_##I##_##O, int64_t, oik_ldi_##I, oik_sti_##O, EXPR, O)

#endif
