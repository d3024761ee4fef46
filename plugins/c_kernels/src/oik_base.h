/* The scalar pieces every kernel shares (docs/c-kernels.md): error messages, the narrow float
 * formats (f16, bf16, f8 E5M2) <-> f32/f64 with one rounding to nearest even, two's-complement
 * integer arithmetic without signed-overflow UB, the integer division rules of ops.md, the
 * min/max rules (NaN wins, -0.0 < +0.0) and exact float <-> integer conversions. */
#ifndef OIK_BASE_H
#define OIK_BASE_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "oi_kernels.h"

/* ops.md: IEEE results, so a*b+c is never contracted into an fma (GCC's ISO C modes already
 * default to -ffp-contract=off; the build passes it too), and no excess precision. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != -1
#error "oi_kernels needs FLT_EVAL_METHOD 0 (no excess precision, e.g. SSE2 on x86)"
#endif

#define OIK_INLINE static inline

/*===--- Errors ---------------------------------------------------------------------------===*/

/* A message built from pieces without stdio: oik_msg_s (text) and oik_msg_i (an integer). */
typedef struct oik_msg {
  char text[256];
  size_t len;
} oik_msg;

OIK_INLINE void oik_msg_s(oik_msg* m, const char* s) {
  while (*s && m->len + 1 < sizeof m->text) m->text[m->len++] = *s++;
  m->text[m->len] = 0;
}

OIK_INLINE void oik_msg_i(oik_msg* m, int64_t v) {
  char digits[24];
  int n = 0;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do {
    digits[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) digits[n++] = '-';
  char out[24];
  for (int k = 0; k < n; ++k) out[k] = digits[n - 1 - k];
  out[n] = 0;
  oik_msg_s(m, out);
}

/* Sets err (when given) and returns code. */
OIK_INLINE int oik_fail(oik_error* err, int code, const oik_msg* m) {
  if (err) {
    err->code = code;
    memcpy(err->message, m->text, m->len + 1);
  }
  return code;
}

OIK_INLINE int oik_fail_s(oik_error* err, int code, const char* text) {
  oik_msg m = {{0}, 0};
  oik_msg_s(&m, text);
  return oik_fail(err, code, &m);
}

OIK_INLINE int oik_ok(oik_error* err) {
  if (err) {
    err->code = OIK_OK;
    err->message[0] = 0;
  }
  return OIK_OK;
}

/*===--- Bit casts and the narrow float formats -------------------------------------------===*/

OIK_INLINE uint32_t oik_f32_bits(float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  return b;
}
OIK_INLINE float oik_bits_f32(uint32_t b) {
  float v;
  memcpy(&v, &b, 4);
  return v;
}
OIK_INLINE uint64_t oik_f64_bits(double v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  return b;
}
OIK_INLINE double oik_bits_f64(uint64_t b) {
  double v;
  memcpy(&v, &b, 8);
  return v;
}

/* The position of the highest set bit plus one (0 for 0). */
OIK_INLINE int oik_bit_width(uint64_t v) {
  int n = 0;
  while (v) {
    ++n;
    v >>= 1;
  }
  return n;
}

/* A binary float layout: exp_bits of biased exponent, man_bits of stored mantissa; IEEE
 * semantics (all-ones exponent is inf/NaN). */
#define OIK_BIAS(e) ((1 << ((e)-1)) - 1)
#define OIK_MAXEXP(e) ((UINT64_C(1) << (e)) - 1)

/* Rounds `bits` of format (se, sm) to the narrower (de, dm): nearest, ties to even, overflow to
 * inf, NaN stays NaN (payload's high bits kept, quiet bit set), subnormals where they exist. */
OIK_INLINE uint64_t oik_narrow(uint64_t bits, int se, int sm, int de, int dm) {
  const uint64_t sign = (bits >> (se + sm)) & 1;
  const uint64_t exp = (bits >> sm) & OIK_MAXEXP(se);
  const uint64_t man = bits & ((UINT64_C(1) << sm) - 1);
  const uint64_t sign_out = sign << (de + dm);
  const uint64_t inf_out = OIK_MAXEXP(de) << dm;
  if (exp == OIK_MAXEXP(se)) {
    if (man == 0) return sign_out | inf_out;
    return sign_out | inf_out | (man >> (sm - dm)) | (UINT64_C(1) << (dm - 1));
  }
  if (exp == 0 && man == 0) return sign_out;
  int64_t e;
  uint64_t sig;
  if (exp == 0) {
    const int lead = oik_bit_width(man) - 1;
    sig = man << (sm - lead);
    e = (int64_t)1 - OIK_BIAS(se) - (sm - lead);
  } else {
    sig = man | (UINT64_C(1) << sm);
    e = (int64_t)exp - OIK_BIAS(se);
  }
  const int64_t biased = e + OIK_BIAS(de);
  if (biased >= (int64_t)OIK_MAXEXP(de)) return sign_out | inf_out;
  int64_t shift = sm - dm;
  if (biased < 1) shift += 1 - biased;
  if (shift > sm + 1) return sign_out;
  uint64_t rounded = sig >> shift;
  const uint64_t rest = sig & ((UINT64_C(1) << shift) - 1);
  const uint64_t half = UINT64_C(1) << (shift - 1);
  if (rest > half || (rest == half && (rounded & 1))) ++rounded;
  if (biased < 1) return sign_out | rounded;
  return sign_out | (((uint64_t)(biased - 1) << dm) + rounded);
}

/* Exact conversion of `bits` of format (se, sm) to the wider f32 (8, 23). */
OIK_INLINE uint32_t oik_widen_to_f32(uint64_t bits, int se, int sm) {
  const int de = 8, dm = 23;
  const uint64_t sign = (bits >> (se + sm)) & 1;
  const uint64_t exp = (bits >> sm) & OIK_MAXEXP(se);
  const uint64_t man = bits & ((UINT64_C(1) << sm) - 1);
  const uint64_t sign_out = sign << (de + dm);
  const int shift = dm - sm;
  if (exp == OIK_MAXEXP(se)) return (uint32_t)(sign_out | (OIK_MAXEXP(de) << dm) | (man << shift));
  if (exp == 0) {
    if (man == 0) return (uint32_t)sign_out;
    const int lead = oik_bit_width(man) - 1;
    const int64_t e = (int64_t)1 - OIK_BIAS(se) - (sm - lead);
    if (e + OIK_BIAS(de) < 1) {
      return (uint32_t)(sign_out | (man << (shift + OIK_BIAS(de) - OIK_BIAS(se))));
    }
    const uint64_t frac = (man << (dm - lead)) & ((UINT64_C(1) << dm) - 1);
    return (uint32_t)(sign_out | ((uint64_t)(e + OIK_BIAS(de)) << dm) | frac);
  }
  const uint64_t e = exp - (uint64_t)OIK_BIAS(se) + (uint64_t)OIK_BIAS(de);
  return (uint32_t)(sign_out | (e << dm) | (man << shift));
}

OIK_INLINE float oik_f16_to_f32(uint16_t b) {
  return oik_bits_f32(oik_widen_to_f32(b, 5, 10));
}
OIK_INLINE float oik_bf16_to_f32(uint16_t b) {
  return oik_bits_f32((uint32_t)b << 16);
}
OIK_INLINE float oik_f8_to_f32(uint8_t b) {
  return oik_bits_f32(oik_widen_to_f32(b, 5, 2));
}
OIK_INLINE uint16_t oik_f32_to_f16(float v) {
  return (uint16_t)oik_narrow(oik_f32_bits(v), 8, 23, 5, 10);
}
OIK_INLINE uint16_t oik_f64_to_f16(double v) {
  return (uint16_t)oik_narrow(oik_f64_bits(v), 11, 52, 5, 10);
}
OIK_INLINE uint16_t oik_f32_to_bf16(float v) {
  return (uint16_t)oik_narrow(oik_f32_bits(v), 8, 23, 8, 7);
}
OIK_INLINE uint16_t oik_f64_to_bf16(double v) {
  return (uint16_t)oik_narrow(oik_f64_bits(v), 11, 52, 8, 7);
}
OIK_INLINE uint8_t oik_f32_to_f8(float v) {
  return (uint8_t)oik_narrow(oik_f32_bits(v), 8, 23, 5, 2);
}
OIK_INLINE uint8_t oik_f64_to_f8(double v) {
  return (uint8_t)oik_narrow(oik_f64_bits(v), 11, 52, 5, 2);
}

/*===--- Integers -------------------------------------------------------------------------===*/

/* Two's-complement arithmetic on int64 values (no signed-overflow UB). */
OIK_INLINE int64_t oik_wadd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
OIK_INLINE int64_t oik_wsub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
OIK_INLINE int64_t oik_wmul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* v reduced to `bits` bits, sign- or zero-extended back to 64. */
OIK_INLINE int64_t oik_wrap_to(int64_t v, int bits, int is_signed) {
  if (bits >= 64) return v;
  const uint64_t low = (uint64_t)v & ((UINT64_C(1) << bits) - 1);
  if (is_signed && (low >> (bits - 1))) return (int64_t)(low | ~((UINT64_C(1) << bits) - 1));
  return (int64_t)low;
}

/* a < b in the dtype's signedness (u64 values above INT64_MAX are negative int64 patterns). */
OIK_INLINE int oik_int_less(int64_t a, int64_t b, int is_signed) {
  return is_signed ? a < b : (uint64_t)a < (uint64_t)b;
}
OIK_INLINE int64_t oik_int_min(int64_t a, int64_t b, int is_signed) {
  return oik_int_less(b, a, is_signed) ? b : a;
}
OIK_INLINE int64_t oik_int_max(int64_t a, int64_t b, int is_signed) {
  return oik_int_less(a, b, is_signed) ? b : a;
}

/* Truncating division (ops.md), the divisor non-zero; INT_MIN / -1 wraps. */
OIK_INLINE int64_t oik_int_div(int64_t a, int64_t b, int is_signed) {
  if (!is_signed) return (int64_t)((uint64_t)a / (uint64_t)b);
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  return a / b;
}
/* a - trunc(a / b) * b, the divisor non-zero. */
OIK_INLINE int64_t oik_int_rem(int64_t a, int64_t b, int is_signed) {
  if (!is_signed) return (int64_t)((uint64_t)a % (uint64_t)b);
  if (b == -1) return 0;
  return a % b;
}
/* floor(a / b), the divisor non-zero. */
OIK_INLINE int64_t oik_int_floor_div(int64_t a, int64_t b, int is_signed) {
  int64_t q = oik_int_div(a, b, is_signed);
  if (is_signed && b != -1 && a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

/* The smallest value of an integer dtype, and its largest as a 64-bit pattern. */
OIK_INLINE int64_t oik_int_lowest(int bits, int is_signed) {
  if (!is_signed) return 0;
  return bits >= 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
}
OIK_INLINE uint64_t oik_int_highest(int bits, int is_signed) {
  const int w = is_signed ? bits - 1 : bits;
  return w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
}

/* A finite integral double within [-2^63, 2^64) as the 64-bit pattern C would give it. */
OIK_INLINE int64_t oik_integral_to_i64(double r) {
  if (r >= 9223372036854775808.0) return (int64_t)(uint64_t)r;
  return (int64_t)r;
}

/* Float to int64 for the generic accessors: truncation, saturated, NaN 0 (never UB). */
OIK_INLINE int64_t oik_f64_to_i64_sat(double v) {
  if (v != v) return 0;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  return (int64_t)v;
}

/* An integer value (in its signedness) as a double rounded to odd at 53 bits: exact below
 * 2^53, and rounding it once more to a format of <= 24 significant bits gives the correctly
 * rounded result (cast to f16/bf16/f8). */
OIK_INLINE double oik_int_to_double_odd(int64_t v, int is_signed) {
  const int negative = is_signed && v < 0;
  const uint64_t m = negative ? 0 - (uint64_t)v : (uint64_t)v;
  const int width = oik_bit_width(m);
  if (width <= 53) return negative ? -(double)m : (double)m;
  const int shift = width - 53;
  uint64_t q = m >> shift;
  if ((m & ((UINT64_C(1) << shift) - 1)) != 0) q |= 1;
  const double r = ldexp((double)q, shift);
  return negative ? -r : r;
}

/* An integer value in its signedness as float / double (round to nearest). */
OIK_INLINE float oik_int_to_f32(int64_t v, int is_signed) {
  return is_signed ? (float)v : (float)(uint64_t)v;
}
OIK_INLINE double oik_int_to_f64(int64_t v, int is_signed) {
  return is_signed ? (double)v : (double)(uint64_t)v;
}

/*===--- cast's conversions (ops.md): rounding_mode, then saturate or wrap ------------------===*/

/* x rounded to an integral value with cast's rounding_mode. */
OIK_INLINE double oik_round_with(double x, oik_rounding r) {
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
OIK_INLINE int64_t oik_wrap_to_int64(double r) {
  const double two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
  double m = fmod(r, two64);
  if (m >= two63) m -= two64;
  if (m < -two63) m += two64;
  return (int64_t)m;
}

/* A float cast to an integer dtype of `bits` bits: rounded, then clamped to the range (NaN 0) or,
 * without saturate, wrapped modulo 2^64 (NaN and +-inf 0); the store keeps the low bits. */
OIK_INLINE int64_t oik_float_to_int(double x, oik_rounding rounding, int saturate, int bits,
                                    int is_signed) {
  if (x != x) return 0;
  if (saturate) {
    const double r = oik_round_with(x, rounding);
    const double lo = (double)oik_int_lowest(bits, is_signed);
    const double above = ldexp(1.0, is_signed ? bits - 1 : bits);
    if (r < lo) return oik_int_lowest(bits, is_signed);
    if (r >= above) return (int64_t)oik_int_highest(bits, is_signed);
    return oik_integral_to_i64(r);
  }
  if (isinf(x)) return 0;
  return oik_wrap_to_int64(oik_round_with(x, rounding)); /* the store keeps the low bits */
}

/* An integer (in from_signed) cast to an integer dtype: clamped to its range, or (without
 * saturate) left for the store to keep the low bits. */
OIK_INLINE int64_t oik_int_to_int(int64_t v, int from_signed, int bits, int to_signed,
                                  int saturate) {
  if (!saturate) return v; /* the store keeps the low bits */
  if (from_signed && v < 0) {
    const int64_t lo = oik_int_lowest(bits, to_signed);
    return v < lo ? lo : v;
  }
  const uint64_t hi = oik_int_highest(bits, to_signed);
  return (uint64_t)v > hi ? (int64_t)hi : v;
}

/*===--- min/max of ops.md: a NaN operand gives NaN, -0.0 < +0.0 ---------------------------===*/

OIK_INLINE float oik_fminf(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
OIK_INLINE float oik_fmaxf(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
OIK_INLINE double oik_fmind(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
OIK_INLINE double oik_fmaxd(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}

/* Type-generic libm calls for the float (f8/bf16/f16/f32) and double (f64) compute types. */
#define OIK_PICK(x, F, D) _Generic((x), float : F, default : D)
#define OIK_TG(F, x) OIK_PICK(x, F##f, F)
#define oik_floor(x) OIK_TG(floor, x)(x)
#define oik_ceil(x) OIK_TG(ceil, x)(x)
#define oik_trunc(x) OIK_TG(trunc, x)(x)
#define oik_nearbyint(x) OIK_TG(nearbyint, x)(x)
#define oik_fabs(x) OIK_TG(fabs, x)(x)
#define oik_sqrt(x) OIK_TG(sqrt, x)(x)
#define oik_exp(x) OIK_TG(exp, x)(x)
#define oik_log(x) OIK_TG(log, x)(x)
#define oik_fma(a, b, c) OIK_TG(fma, a)(a, b, c)
#define oik_fmin(a, b) OIK_PICK(a, oik_fminf, oik_fmind)(a, b)
#define oik_fmax(a, b) OIK_PICK(a, oik_fmaxf, oik_fmaxd)(a, b)

/* The number of 1 bits of v. */
OIK_INLINE int oik_popcount64(uint64_t v) {
  int n = 0;
  while (v) {
    v &= v - 1;
    ++n;
  }
  return n;
}

/* a >> bits, arithmetic (C leaves a negative operand implementation-defined). */
OIK_INLINE int64_t oik_sar(int64_t a, int bits) {
  return a < 0 ? ~(int64_t)(~(uint64_t)a >> bits) : (int64_t)((uint64_t)a >> bits);
}

/* Shape helpers. */
OIK_INLINE uint64_t oik_numel(const oik_tensor* t) {
  uint64_t n = 1;
  for (uint32_t k = 0; k < t->rank; ++k) n *= t->dims[k];
  return n;
}

/* axis made non-negative; -1 when outside [-rank, rank). */
OIK_INLINE int64_t oik_norm_axis(int64_t axis, uint32_t rank) {
  const int64_t r = (int64_t)rank;
  if (axis < -r || axis >= r) return -1;
  return axis < 0 ? axis + r : axis;
}

/* "<op>: axis A is out of range for rank R", the CPU backend's words (axis.hpp). */
OIK_INLINE int oik_fail_axis(oik_error* err, const char* op, int64_t axis, uint32_t rank) {
  oik_msg m = {{0}, 0};
  oik_msg_s(&m, op);
  oik_msg_s(&m, ": axis ");
  oik_msg_i(&m, axis);
  oik_msg_s(&m, " is out of range for rank ");
  oik_msg_i(&m, rank);
  return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
}

OIK_INLINE int oik_check_rank(const oik_tensor* t, oik_error* err) {
  if (t->rank <= OIK_MAX_RANK) return OIK_OK;
  oik_msg m = {{0}, 0};
  oik_msg_s(&m, "oi_kernels: tensors of rank above ");
  oik_msg_i(&m, OIK_MAX_RANK);
  oik_msg_s(&m, " are not supported (rank ");
  oik_msg_i(&m, t->rank);
  oik_msg_s(&m, ")");
  return oik_fail(err, OIK_ERR_UNIMPLEMENTED, &m);
}

#endif
