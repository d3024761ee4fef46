/* fma: a * b + c with one rounding in the compute precision (f32, or f64 for f64), then the
 * one rounding to f8/bf16/f16 (ops.md). */
#include "oik_ew.h"

#define FMA(a, b, c, T) oik_fma(a, b, c)
#define DEF_F(T) OIK_EW3_SAME(fma, T, FMA)

OIK_fma_F(DEF_F)
