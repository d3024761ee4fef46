/* rope(x, pos) (ops-nn.md): rotary position embedding of x [..., T, D], D even. pos is an i32
 * or i64 scalar: token t has position p = pos + t; pair i rotates by p * theta^(-2i/D): pairs
 * (x[i], x[i + D/2]), or with `interleaved` (x[2i], x[2i + 1]). Angles and the rotation run in
 * f64 and the result is rounded once to x's dtype (an f32 angle would be off by ~1e-3 rad at
 * positions beyond a few thousand). In place is safe: each pair is read before either element
 * is written. */
#include "oik_ew.h"

#define DEF(T)                                                                                    \
  int oik_rope_##T(const oik_tensor* x, const oik_tensor* pos, const oik_tensor* y, double theta, \
                   int interleaved, oik_error* err) {                                             \
    if (x->rank < 2)                                                                              \
      return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT, "rope: x needs rank 2 or more");           \
    const uint64_t t_len = x->dims[x->rank - 2], d = x->dims[x->rank - 1];                        \
    if (d % 2 != 0) {                                                                             \
      oik_msg m = {{0}, 0};                                                                       \
      oik_msg_s(&m, "rope: the last dim must be even, got ");                                     \
      oik_msg_i(&m, (int64_t)d);                                                                  \
      return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);                                         \
    }                                                                                             \
    const uint64_t half = d / 2;                                                                  \
    const uint64_t rows = t_len == 0 || d == 0 ? 0 : oik_numel(x) / (t_len * d);                  \
    const int64_t p0 = oik_ldi_dt(pos->dtype, pos->data, 0);                                      \
    const uint64_t lo_step = interleaved ? 2 : 1, hi_offset = interleaved ? 1 : half;             \
    for (uint64_t t = 0; t < t_len && rows > 0; ++t) {                                            \
      const double p = (double)p0 + (double)t;                                                    \
      for (uint64_t i = 0; i < half; ++i) {                                                       \
        const double angle = p * pow(theta, -2.0 * (double)i / (double)d);                        \
        const double c = cos(angle), s = sin(angle);                                              \
        for (uint64_t r = 0; r < rows; ++r) {                                                     \
          const uint64_t ia = (r * t_len + t) * d + i * lo_step, ib = ia + hi_offset;             \
          const double a = oik_ldd_##T(x->data, ia), b = oik_ldd_##T(x->data, ib);                \
          oik_std_##T(y->data, ia, a* c - b * s);                                                 \
          oik_std_##T(y->data, ib, a* s + b * c);                                                 \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
    return oik_ok(err);                                                                           \
  }

OIK_rope_F(DEF)
