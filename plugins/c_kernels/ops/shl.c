/* shl: shift left by `bits` (0 <= bits < width, checked by the caller); wraps at the width
 * (ops.md). */
#include "oik_ew.h"

#define SHL(a, T) ((int64_t)((uint64_t)(a) << (bits & 63)))
#define DEF_I(T) OIK_EW1_SAME_P(shl, T, (int64_t bits), SHL)

OIK_shl_I(DEF_I)
