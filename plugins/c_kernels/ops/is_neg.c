/* is_neg: elementwise -> bool, a < 0: false for -0.0, NaN and unsigned values (ops.md). */
#include "oik_ew.h"

#define OP_F(a, T) ((a) < 0)
#define OP_I(a, T) (OIK_SIGNED_##T && (a) < 0)
#define DEF_F(T) OIK_EW1_TO(is_neg, T, bool, OP_F)
#define DEF_I(T) OIK_EW1_TO(is_neg, T, bool, OP_I)

OIK_is_neg_F(DEF_F) OIK_is_neg_I(DEF_I)
