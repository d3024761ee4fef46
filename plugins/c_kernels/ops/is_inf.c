/* is_inf: elementwise -> bool, true for both infinities (ops.md). */
#include "oik_ew.h"

#define OP(a, T) (isinf(a) != 0)
#define DEF_F(T) OIK_EW1_TO(is_inf, T, bool, OP)

OIK_is_inf_F(DEF_F)
