/* popcount: the number of 1 bits at the dtype's own width, as u8 (i8 -1 -> 8, i4 -1 -> 4)
 * (ops.md). */
#include "oik_ew.h"

#define POPCOUNT(a, T)           \
  oik_popcount64((uint64_t)(a) & \
                 (OIK_BITS_##T >= 64 ? UINT64_MAX : oik_int_highest(OIK_BITS_##T, 0)))
#define DEF_I(T) OIK_EW1_TO(popcount, T, u8, POPCOUNT)

OIK_popcount_I(DEF_I)
