/* matmul: [..., M, K] x [..., K, N] -> [..., M, N] with numpy batch broadcasting (ops.md). Each
 * output element is a sequential dot product over k in the compute type: f32 for f8/bf16/f16/
 * f32 and f64 for f64 (a*b then +, never fused), rounded once to the output dtype; integers
 * wrap (at the acc= width when given); bool is or-of-ands. In place (the output is a or b) the
 * results are staged in the caller's scratch (oik_matmul_scratch_size bytes, 8-byte aligned)
 * and copied out at the end, since every output element reads a whole row and column. */
#include "oik_ew.h"

size_t oik_matmul_scratch_size(const oik_tensor* a, const oik_tensor* b, const oik_tensor* y) {
  if (y->data != a->data && y->data != b->data) return 0;
  return (size_t)oik_numel(y) * 8;
}

/* The batch walk: the output's leading dims with a's and b's matrix indices. */
static int batch_walk(oik_walk* w, const oik_tensor* a, const oik_tensor* b, const oik_tensor* y,
                      oik_error* err) {
  const oik_tensor ab = {a->data, a->dtype, a->rank - 2, a->dims};
  const oik_tensor bb = {b->data, b->dtype, b->rank - 2, b->dims};
  const oik_tensor yb = {y->data, y->dtype, y->rank - 2, y->dims};
  const oik_tensor* ins[2] = {&ab, &bb};
  if (a->rank < 2 || b->rank < 2 || y->rank < 2)
    return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT, "matmul: operands need rank 2 or more");
  return oik_walk_init(w, &yb, 2, ins, err);
}

#define MADD_F(acc, x, z) ((acc) + (x) * (z))
#define MADD_I(acc, x, z) oik_wadd(acc, oik_wmul(x, z))
#define MADD_B(acc, x, z) ((acc) || ((x) && (z)))

#define DEF_MATMUL(NAME, CT, LDA, ST, MADD)                                                      \
  int NAME(const oik_tensor* a, const oik_tensor* b, const oik_tensor* y, void* scratch,         \
           oik_error* err) {                                                                     \
    oik_walk w;                                                                                  \
    const int rc = batch_walk(&w, a, b, y, err);                                                 \
    if (rc) return rc;                                                                           \
    const uint64_t M = a->dims[a->rank - 2], K = a->dims[a->rank - 1], N = b->dims[b->rank - 1]; \
    const int staged = y->data == a->data || y->data == b->data;                                 \
    if (staged && scratch == NULL && M * N > 0 && w.n > 0)                                       \
      return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,                                           \
                        "matmul: in place needs oik_matmul_scratch_size() bytes of scratch");    \
    for (; w.o < w.n; oik_walk_next(&w)) {                                                       \
      const uint64_t a0 = w.in[0] * M * K, b0 = w.in[1] * K * N, y0 = w.o * M * N;               \
      for (uint64_t i = 0; i < M; ++i) {                                                         \
        for (uint64_t j = 0; j < N; ++j) {                                                       \
          CT acc = 0;                                                                            \
          for (uint64_t k = 0; k < K; ++k)                                                       \
            acc = MADD(acc, LDA(a->data, a0 + i * K + k), LDA(b->data, b0 + k * N + j));         \
          if (staged) {                                                                          \
            memcpy((char*)scratch + (y0 + i * N + j) * sizeof(CT), &acc, sizeof(CT));            \
          } else {                                                                               \
            ST(y->data, y0 + i * N + j, acc);                                                    \
          }                                                                                      \
        }                                                                                        \
      }                                                                                          \
    }                                                                                            \
    if (staged) {                                                                                \
      const uint64_t n = oik_numel(y);                                                           \
      for (uint64_t e = 0; e < n; ++e) {                                                         \
        CT v;                                                                                    \
        memcpy(&v, (const char*)scratch + e * sizeof(CT), sizeof(CT));                           \
        ST(y->data, e, v);                                                                       \
      }                                                                                          \
    }                                                                                            \
    return oik_ok(err);                                                                          \
  }

#define DEF_F(T) DEF_MATMUL(oik_matmul_##T, oik_ct_##T, oik_ldc_##T, oik_stc_##T, MADD_F)
#define DEF_I(T) DEF_MATMUL(oik_matmul_##T, int64_t, oik_ldc_##T, oik_stc_##T, MADD_I)
#define DEF_B(T) DEF_MATMUL(oik_matmul_##T, int64_t, oik_ldc_##T, oik_stc_##T, MADD_B)
#define DEF_ACC(I, O) DEF_MATMUL(oik_matmul_##I##_##O, int64_t, oik_ldi_##I, oik_sti_##O, MADD_I)

OIK_matmul_F(DEF_F) OIK_matmul_I(DEF_I) OIK_matmul_B(DEF_B) OIK_matmul_ACC(DEF_ACC)
