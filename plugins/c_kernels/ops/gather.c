/* gather(data, indices): data's `axis` (default 0) replaced by the indices' dims, each index (i32
 * or i64; negative counts from the end) selecting a slice (ops-nn.md). Every data dtype but
 * t1/t2, bit-exact. All indices are checked before anything is written: one out of range is an
 * error naming the op, the index and the bound, never a read outside the tensor. */
#include "oik_ew.h"

static int check_indices(const oik_tensor* indices, int64_t bound, int64_t axis, oik_error* err) {
  const uint64_t count = oik_numel(indices);
  for (uint64_t k = 0; k < count; ++k) {
    const int64_t i = oik_ldi_dt(indices->dtype, indices->data, k);
    if (i < -bound || i >= bound) {
      oik_msg m = {{0}, 0};
      oik_msg_s(&m, "gather: index ");
      oik_msg_i(&m, i);
      oik_msg_s(&m, " is out of range for axis ");
      oik_msg_i(&m, axis);
      oik_msg_s(&m, " of size ");
      oik_msg_i(&m, bound);
      oik_msg_s(&m, " (allowed ");
      oik_msg_i(&m, -bound);
      oik_msg_s(&m, "..");
      oik_msg_i(&m, bound - 1);
      oik_msg_s(&m, ")");
      return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
    }
  }
  return OIK_OK;
}

#define DEF(T)                                                                               \
  int oik_gather_##T(const oik_tensor* data, const oik_tensor* indices, const oik_tensor* y, \
                     int64_t axis, oik_error* err) {                                         \
    const int64_t a = oik_norm_axis(axis, data->rank);                                       \
    if (a < 0) return oik_fail_axis(err, "gather", axis, data->rank);                        \
    const oik_split s = oik_split_at(data, (uint32_t)a);                                     \
    const int64_t bound = (int64_t)s.len;                                                    \
    const int rc = check_indices(indices, bound, a, err);                                    \
    if (rc) return rc;                                                                       \
    const uint64_t count = oik_numel(indices);                                               \
    for (uint64_t r = 0; r < s.outer * count; ++r) { /* r = outer index * count + k */       \
      const uint64_t o = r / count, k = r % count;                                           \
      const int64_t i = oik_ldi_dt(indices->dtype, indices->data, k);                        \
      const uint64_t row = (uint64_t)(i < 0 ? i + bound : i);                                \
      OIK_MOVE(T, y->data, r* s.inner, data->data, (o * s.len + row) * s.inner, s.inner);    \
    }                                                                                        \
    return oik_ok(err);                                                                      \
  }

OIK_gather_F(DEF) OIK_gather_I(DEF) OIK_gather_B(DEF)
