/* ne: elementwise a != b -> bool; any comparison with NaN is false except ne (IEEE,
 * ops.md). Integers compare in their dtype's signedness. */
#include "oik_ew.h"

#define OP_F(a, b, T) ((a) != (b))
#define OP_I(a, b, T) ((a) != (b))
#define DEF_F(T) OIK_EW2_TO(ne, T, bool, OP_F)
#define DEF_I(T) OIK_EW2_TO(ne, T, bool, OP_I)

OIK_ne_F(DEF_F) OIK_ne_I(DEF_I) OIK_ne_B(DEF_I)
