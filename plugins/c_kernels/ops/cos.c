/* cos: the cosine (ops-nn.md "Elementwise math"), F dtypes, normal and in place. Evaluated in
 * double with libm and rounded once to f32 (f64 stays f64); f8/bf16/f16 round that f32 result
 * once more to their dtype, as ops-nn.md's accuracy rule says. */
#include "oik_ew.h"

static inline double op_cos(double a) {
  return cos(a);
}

#define OP(a, T) ((oik_ct_##T)op_cos(a))
#define DEF_F(T) OIK_EW1_SAME(cos, T, OP)

OIK_cos_F(DEF_F)
