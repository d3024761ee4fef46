/* reshape: the output (its declared shape, same element count) holds the input's elements in
 * row-major order, so the bytes are copied as they are (ops-nn.md). Every dtype but t1/t2. */
#include "oik_ew.h"

#define DEF(T)                                                                    \
  int oik_reshape_##T(const oik_tensor* x, const oik_tensor* y, oik_error* err) { \
    const uint64_t n = oik_numel(x);                                              \
    if (n > 0) memmove(y->data, x->data, (size_t)((n * OIK_BITS_##T + 7) / 8));   \
    return oik_ok(err);                                                           \
  }

OIK_reshape_F(DEF) OIK_reshape_I(DEF) OIK_reshape_B(DEF)
