/* rem: a - trunc(a / b) * b for integers, the sign of the dividend; a zero divisor gives 0
 * (ops.md). */
#include "oik_ew.h"

#define REM(a, b, T) ((b) == 0 ? 0 : oik_int_rem(a, b, OIK_SIGNED_##T))
#define DEF_I(T) OIK_EW2_SAME(rem, T, REM)

OIK_rem_I(DEF_I)
