/* mean_axis: sum / count over `axes` (absent: all; []: none) (ops.md). Floats sum in row-major
 * order in f32 (f64 for f64) from -0.0 (only -0.0 terms give -0.0) and divide once (an empty
 * axis gives 0/0 = NaN); integers sum exactly (128 bits), or wrapped at the acc= width when
 * given, and the quotient truncates toward zero (an empty axis gives 0). */
#include "oik_ew.h"

/* A 128-bit two's-complement integer. */
typedef struct {
  uint64_t lo;
  int64_t hi;
} wide;

static inline wide wide_zero(void) {
  const wide z = {0, 0};
  return z;
}

static inline wide wide_add(wide s, int64_t v, int is_signed) {
  const uint64_t lo = s.lo + (uint64_t)v;
  s.hi = oik_wadd(s.hi, (lo < s.lo) + (is_signed && v < 0 ? -1 : 0));
  s.lo = lo;
  return s;
}

/* s / count, truncated toward zero; the quotient fits in 64 bits. */
static inline int64_t wide_div(wide s, uint64_t count) {
  const int negative = s.hi < 0;
  uint64_t hi = (uint64_t)s.hi, lo = s.lo;
  if (negative) { /* the magnitude */
    lo = ~lo + 1;
    hi = ~hi + (lo == 0);
  }
  uint64_t rem = 0, q = 0;
  for (int bit = 127; bit >= 0; --bit) {
    const uint64_t top = rem >> 63;
    rem = (rem << 1) | ((bit >= 64 ? hi >> (bit - 64) : lo >> bit) & 1);
    q <<= 1;
    if (top || rem >= count) {
      rem -= count;
      q |= 1;
    }
  }
  return negative ? (int64_t)(0 - q) : (int64_t)q;
}

/* The acc= form: the sum wrapped at the output's width, then divided in its signedness. */
static inline int64_t acc_mean(wide s, uint64_t count, int bits, int is_signed) {
  const int64_t w = oik_wrap_to((int64_t)s.lo, bits, is_signed);
  if (count == 0) return 0;
  if (!is_signed) return (int64_t)((uint64_t)w / count);
  return w / (int64_t)count;
}

#define HEAD(NAME)                                                                          \
  int NAME(const oik_tensor* x, const oik_tensor* y, const int64_t* axes, int64_t num_axes, \
           oik_error* err) {                                                                \
    oik_reduce r;                                                                           \
    const int rc = oik_reduce_setup(&r, x, axes, num_axes, "mean_axis", err);               \
    if (rc) return rc;
#define DEF_F(T)                                                                      \
  HEAD(oik_mean_axis_##T)                                                             \
  OIK_REDUCE_LOOP(r, x, oik_ct_##T, oik_ldc_##T,                                      \
                  oik_ct_##T acc = OIK_SUM_START(oik_ct_##T, r.count), acc = acc + v, \
                  oik_stc_##T(y->data, o, acc / (oik_ct_##T)r.count))                 \
  return oik_ok(err);                                                                 \
  }
#define DEF_I(T)                                                                 \
  HEAD(oik_mean_axis_##T)                                                        \
  OIK_REDUCE_LOOP(r, x, int64_t, oik_ldc_##T, wide acc = wide_zero(),            \
                  acc = wide_add(acc, v, OIK_SIGNED_##T),                        \
                  oik_stc_##T(y->data, o, r.count ? wide_div(acc, r.count) : 0)) \
  return oik_ok(err);                                                            \
  }
#define DEF_ACC(I, O)                                                                            \
  HEAD(oik_mean_axis_##I##_##O)                                                                  \
  OIK_REDUCE_LOOP(r, x, int64_t, oik_ldi_##I, wide acc = wide_zero(),                            \
                  acc = wide_add(acc, v, OIK_SIGNED_##I),                                        \
                  oik_sti_##O(y->data, o, acc_mean(acc, r.count, OIK_BITS_##O, OIK_SIGNED_##O))) \
  return oik_ok(err);                                                                            \
  }

OIK_mean_axis_F(DEF_F) OIK_mean_axis_I(DEF_I) OIK_mean_axis_ACC(DEF_ACC)
