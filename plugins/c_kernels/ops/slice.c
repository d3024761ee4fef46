/* slice (ONNX Slice, ops-nn.md): per sliced axis a start, end and step (default 1, never 0);
 * negative starts/ends count from the end and are then clamped to [0, dim] (step > 0) or
 * [-1, dim - 1] (step < 0), as openinfer/geometry.h's oi_slice_axis computes it. `axes` NULL:
 * 0, 1, ...; `steps` NULL: all 1. Every dtype but t1/t2, bit-exact; packed dtypes move element
 * by element and stay packed. */
#include "oik_ew.h"
#include "openinfer/geometry.h" /* the SDK's slice arithmetic, shared with every user */

typedef struct {
  int64_t start[OIK_MAX_RANK], step[OIK_MAX_RANK], stride[OIK_MAX_RANK];
  uint64_t count[OIK_MAX_RANK];
} slice_plan;

static int plan_slice(const oik_tensor* x, const oik_tensor* y, const int64_t* starts,
                      const int64_t* ends, const int64_t* axes, const int64_t* steps, uint32_t n,
                      slice_plan* p, oik_error* err) {
  const int64_t rank = x->rank;
  unsigned char seen[OIK_MAX_RANK] = {0};
  const int rc = oik_check_rank(x, err);
  if (rc) return rc;
  if (!axes && n > x->rank)
    return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,
                      "slice: 'starts', 'ends', 'axes' and 'steps' must have one entry per "
                      "sliced axis");
  int64_t s = 1;
  for (uint32_t k = x->rank; k-- > 0;) {
    p->start[k] = 0;
    p->step[k] = 1;
    p->count[k] = x->dims[k];
    p->stride[k] = s;
    s *= (int64_t)x->dims[k];
  }
  for (uint32_t i = 0; i < n; ++i) {
    int64_t a = axes ? axes[i] : (int64_t)i;
    if (a < -rank || a >= rank || seen[a < 0 ? a + rank : a]) {
      oik_msg m = {{0}, 0};
      oik_msg_s(&m, "slice: axis ");
      oik_msg_i(&m, a);
      oik_msg_s(&m, " is out of range or repeated");
      return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
    }
    a = a < 0 ? a + rank : a;
    seen[a] = 1;
    const int64_t step = steps ? steps[i] : 1;
    if (step == 0) return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT, "slice: a step is 0");
    const oi_slice_axis_range r = oi_slice_axis(starts[i], ends[i], step, x->dims[a]);
    p->start[a] = r.start;
    p->step[a] = r.step;
    p->count[a] = r.count;
  }
  for (uint32_t k = 0; k < x->rank; ++k)
    if (p->count[k] != y->dims[k])
      return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,
                        "slice: the output does not have the sliced shape");
  return OIK_OK;
}

#define DEF(T)                                                                       \
  int oik_slice_##T(const oik_tensor* x, const oik_tensor* y, const int64_t* starts, \
                    const int64_t* ends, const int64_t* axes, const int64_t* steps,  \
                    uint32_t count, oik_error* err) {                                \
    slice_plan p;                                                                    \
    const int rc = plan_slice(x, y, starts, ends, axes, steps, count, &p, err);      \
    if (rc) return rc;                                                               \
    const uint64_t n = oik_numel(y);                                                 \
    uint64_t idx[OIK_MAX_RANK] = {0};                                                \
    int64_t src = 0;                                                                 \
    for (uint32_t k = 0; k < x->rank; ++k) src += p.start[k] * p.stride[k];          \
    for (uint64_t o = 0; o < n; ++o) {                                               \
      oik_stb_##T(y->data, o, oik_ldb_##T(x->data, (uint64_t)src));                  \
      for (uint32_t k = x->rank; k-- > 0;) {                                         \
        src += p.step[k] * p.stride[k];                                              \
        if (++idx[k] < p.count[k]) break;                                            \
        src -= (int64_t)idx[k] * p.step[k] * p.stride[k];                            \
        idx[k] = 0;                                                                  \
      }                                                                              \
    }                                                                                \
    return oik_ok(err);                                                              \
  }

OIK_slice_F(DEF) OIK_slice_I(DEF) OIK_slice_B(DEF)
