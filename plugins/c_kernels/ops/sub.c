/* sub: a - b; integers wrap at the dtype's width (ops.md). */
#include "oik_ew.h"

#define SUB_F(a, b, T) ((a) - (b))
#define SUB_I(a, b, T) oik_wsub(a, b)
#define DEF_F(T) OIK_EW2_SAME(sub, T, SUB_F)
#define DEF_I(T) OIK_EW2_SAME(sub, T, SUB_I)
#define DEF_ACC(I, O) OIK_EW2_ACC(sub, I, O, SUB_I)

OIK_sub_F(DEF_F) OIK_sub_I(DEF_I) OIK_sub_ACC(DEF_ACC)
