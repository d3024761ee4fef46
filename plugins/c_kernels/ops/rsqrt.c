/* rsqrt: 1 / sqrt(a) (ops-nn.md "Elementwise math"), F dtypes, normal and in place. Evaluated in
 * double with libm and rounded once to f32 (f64 stays f64); f8/bf16/f16 round that f32 result
 * once more to their dtype, as ops-nn.md's accuracy rule says. */
#include "oik_ew.h"

static inline double op_rsqrt(double a) {
  return 1.0 / sqrt(a);
}

#define OP(a, T) ((oik_ct_##T)op_rsqrt(a))
#define DEF_F(T) OIK_EW1_SAME(rsqrt, T, OP)

OIK_rsqrt_F(DEF_F)
