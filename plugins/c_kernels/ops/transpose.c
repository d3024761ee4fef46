/* transpose: output axis i is input axis perm[i] (NULL: the axes reversed; negative entries
 * count from the end) (ops-nn.md). Every dtype but t1/t2, bit-exact; packed dtypes move element
 * by element and stay packed. The output is walked in row-major order with an odometer over the
 * permuted input strides. */
#include "oik_ew.h"

/* The input stride of each output axis, and the output dims; fails unless perm permutes. */
static int plan(const oik_tensor* x, const int64_t* perm, uint64_t* dims, uint64_t* stride,
                oik_error* err) {
  const uint32_t rank = x->rank;
  uint64_t in_stride[OIK_MAX_RANK];
  unsigned char seen[OIK_MAX_RANK] = {0};
  const int rc = oik_check_rank(x, err);
  if (rc) return rc;
  uint64_t s = 1;
  for (uint32_t k = rank; k-- > 0;) {
    in_stride[k] = s;
    s *= x->dims[k];
  }
  for (uint32_t i = 0; i < rank; ++i) {
    const int64_t p = perm ? oik_norm_axis(perm[i], rank) : (int64_t)(rank - 1 - i);
    if (p < 0 || seen[p]) {
      oik_msg m = {{0}, 0};
      oik_msg_s(&m, "transpose: 'perm' is not a permutation of the ");
      oik_msg_i(&m, rank);
      oik_msg_s(&m, " axes");
      return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
    }
    seen[p] = 1;
    dims[i] = x->dims[p];
    stride[i] = in_stride[p];
  }
  return OIK_OK;
}

#define DEF(T)                                                                         \
  int oik_transpose_##T(const oik_tensor* x, const oik_tensor* y, const int64_t* perm, \
                        oik_error* err) {                                              \
    uint64_t dims[OIK_MAX_RANK], stride[OIK_MAX_RANK], idx[OIK_MAX_RANK] = {0};        \
    const int rc = plan(x, perm, dims, stride, err);                                   \
    if (rc) return rc;                                                                 \
    const uint64_t n = oik_numel(x);                                                   \
    uint64_t src = 0;                                                                  \
    for (uint64_t o = 0; o < n; ++o) {                                                 \
      oik_stb_##T(y->data, o, oik_ldb_##T(x->data, src));                              \
      for (uint32_t k = x->rank; k-- > 0;) { /* the next output index, carrying */     \
        src += stride[k];                                                              \
        if (++idx[k] < dims[k]) break;                                                 \
        src -= idx[k] * stride[k];                                                     \
        idx[k] = 0;                                                                    \
      }                                                                                \
    }                                                                                  \
    return oik_ok(err);                                                                \
  }

OIK_transpose_F(DEF) OIK_transpose_I(DEF) OIK_transpose_B(DEF)
