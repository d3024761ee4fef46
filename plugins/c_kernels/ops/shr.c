/* shr: shift right by `bits`; arithmetic for signed dtypes (the loaded value is sign-extended),
 * logical for unsigned ones (zero-extended) (ops.md). */
#include "oik_ew.h"

#define SHR(a, T) \
  (OIK_SIGNED_##T ? oik_sar(a, (int)(bits & 63)) : (int64_t)((uint64_t)(a) >> (bits & 63)))
#define DEF_I(T) OIK_EW1_SAME_P(shr, T, (int64_t bits), SHR)

OIK_shr_I(DEF_I)
