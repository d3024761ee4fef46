/* pow(a, b) = a^b as C's pow (ops-nn.md "Elementwise math"), F dtypes with numpy broadcasting,
 * normal and in place (the output is input 0). Evaluated in double and rounded once to f32
 * (f64 stays f64), then to a narrow dtype. */
#include "oik_ew.h"

#define OP(a, b, T) ((oik_ct_##T)pow(a, b))
#define DEF_F(T) OIK_EW2_SAME(pow, T, OP)

OIK_pow_F(DEF_F)
