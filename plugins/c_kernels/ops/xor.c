/* xor: bitwise on the two's-complement bits at the dtype's width; logical for bool (ops.md). */
#include "oik_ew.h"

#define OP_I(a, b, T) ((a) ^ (b))
#define OP_B(a, b, T) ((a) != (b))
#define DEF_I(T) OIK_EW2_SAME(xor, T, OP_I)
#define DEF_B(T) OIK_EW2_SAME(xor, T, OP_B)

OIK_xor_I(DEF_I) OIK_xor_B(DEF_B)
