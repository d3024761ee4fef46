/* add: a + b; integers wrap at the dtype's width, bool is logical or (ops.md). */
#include "oik_ew.h"

#define ADD_F(a, b, T) ((a) + (b))
#define ADD_I(a, b, T) oik_wadd(a, b)
#define ADD_B(a, b, T) ((a) || (b))
#define DEF_F(T) OIK_EW2_SAME(add, T, ADD_F)
#define DEF_I(T) OIK_EW2_SAME(add, T, ADD_I)
#define DEF_B(T) OIK_EW2_SAME(add, T, ADD_B)
#define DEF_ACC(I, O) OIK_EW2_ACC(add, I, O, ADD_I)

OIK_add_F(DEF_F) OIK_add_I(DEF_I) OIK_add_B(DEF_B) OIK_add_ACC(DEF_ACC)
