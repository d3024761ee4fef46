/* round: half to even (2.5 -> 2, -0.5 -> -0): nearbyint in the default rounding mode (ops.md).
 * Computed in f32 (f64), then rounded once to a narrow dtype. */
#include "oik_ew.h"

#define OP(a, T) oik_nearbyint(a)
#define DEF_F(T) OIK_EW1_SAME(round, T, OP)

OIK_round_F(DEF_F)
