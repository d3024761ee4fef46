/* sign: -1, 0 or 1 as i8; NaN and -0.0 give 0 (ops.md). */
#include "oik_ew.h"

#define SIGN(a, T) ((a) > 0 ? 1 : (a) < 0 ? -1 : 0)
#define DEF(T) OIK_EW1_TO(sign, T, i8, SIGN)

OIK_sign_F(DEF) OIK_sign_I(DEF)
