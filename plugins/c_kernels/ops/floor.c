/* floor: toward -inf, as in C (ops.md). Computed in f32 (f64), then rounded once to a narrow dtype.
 */
#include "oik_ew.h"

#define OP(a, T) oik_floor(a)
#define DEF_F(T) OIK_EW1_SAME(floor, T, OP)

OIK_floor_F(DEF_F)
