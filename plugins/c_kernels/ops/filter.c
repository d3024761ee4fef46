/* filter(a, b, c) = c != 0 ? a : b elementwise, with numpy broadcasting (ops.md). c has a's
 * dtype or is bool; a float c is "non-zero" when it is not +-0.0 (NaN selects a). The chosen
 * element's bits are copied unchanged. */
#include "oik_ew.h"

#define DEF(T)                                                                             \
  int oik_filter_##T(const oik_tensor* a, const oik_tensor* b, const oik_tensor* c,        \
                     const oik_tensor* y, oik_error* err) {                                \
    const oik_tensor* ins[3] = {a, b, c};                                                  \
    oik_walk w;                                                                            \
    const int rc = oik_walk_init(&w, y, 3, ins, err);                                      \
    if (rc) return rc;                                                                     \
    const int float_cond = oik_dt_is_float(c->dtype);                                      \
    for (; w.o < w.n; oik_walk_next(&w)) {                                                 \
      const int pick_a = float_cond ? oik_ldd_dt(c->dtype, c->data, w.in[2]) != 0.0        \
                                    : oik_ldi_dt(c->dtype, c->data, w.in[2]) != 0;         \
      oik_stb_##T(y->data, w.o,                                                            \
                  pick_a ? oik_ldb_##T(a->data, w.in[0]) : oik_ldb_##T(b->data, w.in[1])); \
    }                                                                                      \
    return oik_ok(err);                                                                    \
  }

OIK_filter_F(DEF) OIK_filter_I(DEF) OIK_filter_B(DEF)
