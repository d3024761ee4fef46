/* pad (ONNX Pad, ops-nn.md): `pads` = [begin_0, ..., end_0, ...] (never negative), `mode`
 * constant (`value`, converted to the dtype as fill does: floats round once, integers keep
 * their low bits, bool is value != 0), reflect (mirror without repeating the edge; each pad
 * smaller than its axis) or edge (repeat the edge). Every dtype but t1/t2, bit-exact; packed
 * dtypes move element by element and stay packed. */
#include "oik_ew.h"

/* The input index that output index o of an axis of size d with `begin` padding reads; -1: the
 * constant value. */
static inline int64_t source_index(int64_t o, int64_t d, int64_t begin, oik_pad_mode mode) {
  const int64_t i = o - begin;
  if (i >= 0 && i < d) return i;
  if (mode == OIK_PAD_EDGE) return i < 0 ? 0 : d - 1;
  if (mode == OIK_PAD_REFLECT) return i < 0 ? -i : 2 * (d - 1) - i;
  return -1;
}

static int check_pads(const oik_tensor* x, const oik_tensor* y, const int64_t* pads,
                      oik_pad_mode mode, oik_error* err) {
  const int rc = oik_check_rank(x, err);
  if (rc) return rc;
  for (uint32_t k = 0; k < x->rank; ++k) {
    const int64_t dim = (int64_t)x->dims[k], begin = pads[k], end = pads[k + x->rank];
    const int padded = begin > 0 || end > 0;
    if (begin < 0 || end < 0 ||
        (mode == OIK_PAD_REFLECT && padded && (begin >= dim || end >= dim)) ||
        (mode == OIK_PAD_EDGE && padded && dim == 0)) {
      oik_msg m = {{0}, 0};
      oik_msg_s(&m, "pad: the pads of axis ");
      oik_msg_i(&m, k);
      oik_msg_s(&m, " do not suit its size and the mode");
      return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
    }
    if (x->dims[k] + (uint64_t)(begin + end) != y->dims[k])
      return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,
                        "pad: the output does not have the padded shape");
  }
  return OIK_OK;
}

#define BODY(T, STORE_VALUE)                                                                 \
  {                                                                                          \
    const int rc = check_pads(x, y, pads, mode, err);                                        \
    if (rc) return rc;                                                                       \
    unsigned char cell[8] = {0};                                                             \
    STORE_VALUE;                                                                             \
    const uint64_t fill = oik_ldb_##T(cell, 0);                                              \
    const uint32_t rank = x->rank;                                                           \
    int64_t stride[OIK_MAX_RANK];                                                            \
    uint64_t idx[OIK_MAX_RANK] = {0};                                                        \
    int64_t s = 1;                                                                           \
    for (uint32_t k = rank; k-- > 0;) {                                                      \
      stride[k] = s;                                                                         \
      s *= (int64_t)x->dims[k];                                                              \
    }                                                                                        \
    const uint64_t n = oik_numel(y);                                                         \
    for (uint64_t o = 0; o < n; ++o) {                                                       \
      int64_t src = 0;                                                                       \
      int constant = 0;                                                                      \
      for (uint32_t k = 0; k < rank; ++k) {                                                  \
        const int64_t i = source_index((int64_t)idx[k], (int64_t)x->dims[k], pads[k], mode); \
        if (i < 0) constant = 1;                                                             \
        src += i * stride[k];                                                                \
      }                                                                                      \
      oik_stb_##T(y->data, o, constant ? fill : oik_ldb_##T(x->data, (uint64_t)src));        \
      for (uint32_t k = rank; k-- > 0;) {                                                    \
        if (++idx[k] < y->dims[k]) break;                                                    \
        idx[k] = 0;                                                                          \
      }                                                                                      \
    }                                                                                        \
    return oik_ok(err);                                                                      \
  }

#define DEF_F(T)                                                                 \
  int oik_pad_##T(const oik_tensor* x, const oik_tensor* y, const int64_t* pads, \
                  oik_pad_mode mode, double value, oik_error* err)               \
      BODY(T, oik_std_##T(cell, 0, value))
#define DEF_I(T)                                                                 \
  int oik_pad_##T(const oik_tensor* x, const oik_tensor* y, const int64_t* pads, \
                  oik_pad_mode mode, int64_t value, oik_error* err)              \
      BODY(T, oik_sti_##T(cell, 0, value))

OIK_pad_F(DEF_F) OIK_pad_I(DEF_I) OIK_pad_B(DEF_I)
