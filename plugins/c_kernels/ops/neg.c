/* neg: -a; the most negative integer wraps to itself (ops.md). */
#include "oik_ew.h"

#define NEG_F(a, T) (-(a))
#define NEG_I(a, T) oik_wsub(0, a)
#define DEF_F(T) OIK_EW1_SAME(neg, T, NEG_F)
#define DEF_I(T) OIK_EW1_SAME(neg, T, NEG_I)

OIK_neg_F(DEF_F) OIK_neg_I(DEF_I)
