/* trunc: toward zero, as in C (ops.md). Computed in f32 (f64), then rounded once to a narrow dtype.
 */
#include "oik_ew.h"

#define OP(a, T) oik_trunc(a)
#define DEF_F(T) OIK_EW1_SAME(trunc, T, OP)

OIK_trunc_F(DEF_F)
