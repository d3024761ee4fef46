/* recip: 1 / a for floats; a zero gives div_by_zero_mask when given, else IEEE +-inf (ops.md). */
#include "oik_ew.h"

#define RECIP(a, T) ((a) == 0 && has_mask ? (oik_ct_##T)mask : 1 / (a))
#define DEF_F(T) OIK_EW1_SAME_P(recip, T, (int has_mask, double mask), RECIP)

OIK_recip_F(DEF_F)
