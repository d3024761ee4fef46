/* lt: elementwise a < b -> bool; any comparison with NaN is false except ne (IEEE,
 * ops.md). Integers compare in their dtype's signedness. */
#include "oik_ew.h"

#define OP_F(a, b, T) ((a) < (b))
#define OP_I(a, b, T) oik_int_less(a, b, OIK_SIGNED_##T)
#define DEF_F(T) OIK_EW2_TO(lt, T, bool, OP_F)
#define DEF_I(T) OIK_EW2_TO(lt, T, bool, OP_I)

OIK_lt_F(DEF_F) OIK_lt_I(DEF_I)
