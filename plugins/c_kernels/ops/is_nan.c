/* is_nan: elementwise -> bool, true iff a is NaN (ops.md). */
#include "oik_ew.h"

#define OP(a, T) ((a) != (a))
#define DEF_F(T) OIK_EW1_TO(is_nan, T, bool, OP)

OIK_is_nan_F(DEF_F)
