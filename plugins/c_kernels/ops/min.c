/* min: elementwise min; a NaN operand gives NaN, -0.0 counts as less than +0.0 (ops.md). */
#include "oik_ew.h"

#define MIN_F(a, b, T) oik_fmin(a, b)
#define MIN_I(a, b, T) oik_int_min(a, b, OIK_SIGNED_##T)
#define DEF_F(T) OIK_EW2_SAME(min, T, MIN_F)
#define DEF_I(T) OIK_EW2_SAME(min, T, MIN_I)

OIK_min_F(DEF_F) OIK_min_I(DEF_I)
