/* div: a / b. Integers truncate toward zero and INT_MIN / -1 wraps; a zero divisor gives
 * div_by_zero_mask when given (converted to the dtype), else 0 for integers and IEEE inf/NaN
 * for floats (ops.md). */
#include "oik_ew.h"

#define DIV_F(a, b, T) ((b) == 0 && has_mask ? (oik_ct_##T)mask : (a) / (b))
#define DIV_I(a, b, T) ((b) == 0 ? (has_mask ? mask : 0) : oik_int_div(a, b, OIK_SIGNED_##T))
#define DEF_F(T) OIK_EW2_SAME_P(div, T, (int has_mask, double mask), DIV_F)
#define DEF_I(T) OIK_EW2_SAME_P(div, T, (int has_mask, int64_t mask), DIV_I)

OIK_div_F(DEF_F) OIK_div_I(DEF_I)
