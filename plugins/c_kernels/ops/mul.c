/* mul: a * b; integers wrap at the dtype's width, bool is logical and (ops.md). */
#include "oik_ew.h"

#define MUL_F(a, b, T) ((a) * (b))
#define MUL_I(a, b, T) oik_wmul(a, b)
#define MUL_B(a, b, T) ((a) && (b))
#define DEF_F(T) OIK_EW2_SAME(mul, T, MUL_F)
#define DEF_I(T) OIK_EW2_SAME(mul, T, MUL_I)
#define DEF_B(T) OIK_EW2_SAME(mul, T, MUL_B)
#define DEF_ACC(I, O) OIK_EW2_ACC(mul, I, O, MUL_I)

OIK_mul_F(DEF_F) OIK_mul_I(DEF_I) OIK_mul_B(DEF_B) OIK_mul_ACC(DEF_ACC)
