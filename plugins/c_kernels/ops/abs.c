/* abs: |a|; the most negative integer wraps to itself, unless acc= widens it first (ops.md). */
#include "oik_ew.h"

#define ABS_F(a, T) oik_fabs(a)
#define ABS_I(a, T) ((a) < 0 ? oik_wsub(0, a) : (a))
#define DEF_F(T) OIK_EW1_SAME(abs, T, ABS_F)
#define DEF_I(T) OIK_EW1_SAME(abs, T, ABS_I)
#define DEF_ACC(I, O) OIK_EW1_ACC(abs, I, O, ABS_I)

OIK_abs_F(DEF_F) OIK_abs_I(DEF_I) OIK_abs_ACC(DEF_ACC)
