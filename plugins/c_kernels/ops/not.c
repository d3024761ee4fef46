/* not: bitwise complement at the dtype's width; logical for bool (ops.md). */
#include "oik_ew.h"

#define NOT_I(a, T) (~(a))
#define NOT_B(a, T) ((a) == 0)
#define DEF_I(T) OIK_EW1_SAME(not, T, NOT_I)
#define DEF_B(T) OIK_EW1_SAME(not, T, NOT_B)

OIK_not_I(DEF_I) OIK_not_B(DEF_B)
