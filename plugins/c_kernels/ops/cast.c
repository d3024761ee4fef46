/* cast: to the output dtype (ops.md). float -> float and integer -> float round once to nearest
 * even (narrow floats from the integer rounded to odd at 53 bits, so the one rounding is right);
 * float -> integer first rounds with rounding_mode, then saturate clamps to the target's range
 * (NaN -> 0) or, without it, wraps modulo 2^width (NaN and +-inf -> 0); integer -> integer
 * saturates or wraps the same way; -> bool is x != 0 (NaN is true); bool -> anything is 0 or 1. */
#include "oik_ew.h"

static inline double round_with(double x, oik_rounding r) {
  switch (r) {
    case OIK_ROUND_FLOOR:
      return floor(x);
    case OIK_ROUND_CEIL:
      return ceil(x);
    case OIK_ROUND_NEAREST_EVEN:
      return nearbyint(x); /* half to even in the default rounding mode */
    default:
      return trunc(x);
  }
}

/* An integral double reduced modulo 2^64 into [-2^63, 2^63), exactly. */
static inline int64_t wrap_to_int64(double r) {
  const double two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
  double m = fmod(r, two64);
  if (m >= two63) m -= two64;
  if (m < -two63) m += two64;
  return (int64_t)m;
}

static inline int64_t float_to_int(double x, oik_rounding rounding, int saturate, int bits,
                                   int is_signed) {
  if (x != x) return 0;
  if (saturate) {
    const double r = round_with(x, rounding);
    const double lo = (double)oik_int_lowest(bits, is_signed);
    const double above = ldexp(1.0, is_signed ? bits - 1 : bits);
    if (r < lo) return oik_int_lowest(bits, is_signed);
    if (r >= above) return (int64_t)oik_int_highest(bits, is_signed);
    return oik_integral_to_i64(r);
  }
  if (isinf(x)) return 0;
  return wrap_to_int64(round_with(x, rounding)); /* the store keeps the low bits */
}

static inline int64_t int_to_int(int64_t v, int from_signed, int bits, int to_signed,
                                 int saturate) {
  if (!saturate) return v; /* the store keeps the low bits */
  if (from_signed && v < 0) {
    const int64_t lo = oik_int_lowest(bits, to_signed);
    return v < lo ? lo : v;
  }
  const uint64_t hi = oik_int_highest(bits, to_signed);
  return (uint64_t)v > hi ? (int64_t)hi : v;
}

#define DEF(I, O)                                                                             \
  int oik_cast_##I##_##O(const oik_tensor* x, const oik_tensor* y, oik_rounding rounding,     \
                         int saturate, oik_error* err) {                                      \
    const uint64_t n = oik_numel(y);                                                          \
    for (uint64_t i = 0; i < n; ++i) {                                                        \
      if (OIK_ISF_##I) {                                                                      \
        const double v = oik_ldd_##I(x->data, i); /* exact for every float dtype */           \
        if (OIK_ISBOOL_##O) {                                                                 \
          oik_sti_##O(y->data, i, v != 0.0 || v != v);                                        \
        } else if (OIK_ISF_##O) {                                                             \
          oik_std_##O(y->data, i, v);                                                         \
        } else {                                                                              \
          oik_sti_##O(y->data, i,                                                             \
                      float_to_int(v, rounding, saturate, OIK_BITS_##O, OIK_SIGNED_##O));     \
        }                                                                                     \
      } else {                                                                                \
        const int64_t v = oik_ldi_##I(x->data, i); /* bool: 0 or 1 */                         \
        if (OIK_ISBOOL_##O) {                                                                 \
          oik_sti_##O(y->data, i, v != 0);                                                    \
        } else if (!OIK_ISF_##O) {                                                            \
          oik_sti_##O(y->data, i,                                                             \
                      int_to_int(v, OIK_SIGNED_##I, OIK_BITS_##O, OIK_SIGNED_##O, saturate)); \
        } else if (OIK_TAG_##O == OIK_F32) {                                                  \
          oik_stf_##O(y->data, i, oik_int_to_f32(v, OIK_SIGNED_##I));                         \
        } else if (OIK_TAG_##O == OIK_F64) {                                                  \
          oik_std_##O(y->data, i, oik_int_to_f64(v, OIK_SIGNED_##I));                         \
        } else {                                                                              \
          oik_std_##O(y->data, i, oik_int_to_double_odd(v, OIK_SIGNED_##I));                  \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
    return oik_ok(err);                                                                       \
  }

OIK_cast_PAIRS(DEF)
