/* max: elementwise max; a NaN operand gives NaN, -0.0 counts as less than +0.0 (ops.md). */
#include "oik_ew.h"

#define MAX_F(a, b, T) oik_fmax(a, b)
#define MAX_I(a, b, T) oik_int_max(a, b, OIK_SIGNED_##T)
#define DEF_F(T) OIK_EW2_SAME(max, T, MAX_F)
#define DEF_I(T) OIK_EW2_SAME(max, T, MAX_I)

OIK_max_F(DEF_F) OIK_max_I(DEF_I)
