/* argmax_axis: the index of the max along `axis` (default 0) as i64; ties pick the first index
 * (select_first) or the last, a NaN its first index (ops.md). Floats compare exactly in double.
 * An empty axis is an error; a rank-0 input gives 0. */
#include "oik_arg_reduce.h"

#define DEF_F(T) OIK_ARG_REDUCE(argmax_axis, T, double, oik_ldd_##T, v > best)
#define DEF_I(T) \
  OIK_ARG_REDUCE(argmax_axis, T, int64_t, oik_ldc_##T, oik_int_less(best, v, OIK_SIGNED_##T))

OIK_argmax_axis_F(DEF_F) OIK_argmax_axis_I(DEF_I)
