/* floor_div: floor(a / b) for integers (-7 floor_div 2 = -4); a zero divisor gives
 * div_by_zero_mask when given, else 0 (ops.md). */
#include "oik_ew.h"

#define FLOOR_DIV(a, b, T) \
  ((b) == 0 ? (has_mask ? mask : 0) : oik_int_floor_div(a, b, OIK_SIGNED_##T))
#define DEF_I(T) OIK_EW2_SAME_P(floor_div, T, (int has_mask, int64_t mask), FLOOR_DIV)

OIK_floor_div_I(DEF_I)
