/* clamp: min(max(a, min), max) with the min/max rules of ops.md (NaN stays NaN, -0.0 < +0.0);
 * the bounds are converted to the compute type first. Integer bounds are optional (the +-inf
 * defaults mean unbounded). */
#include "oik_ew.h"

#define CLAMP_F(a, T) oik_fmin(oik_fmax(a, (oik_ct_##T)min), (oik_ct_##T)max)
#define CLAMP_I(a, T) clamp_int(a, has_min, min, has_max, max, OIK_SIGNED_##T)
#define DEF_F(T) OIK_EW1_SAME_P(clamp, T, (double min, double max), CLAMP_F)
#define DEF_I(T) \
  OIK_EW1_SAME_P(clamp, T, (int has_min, int64_t min, int has_max, int64_t max), CLAMP_I)

static inline int64_t clamp_int(int64_t a, int has_min, int64_t min, int has_max, int64_t max,
                                int is_signed) {
  if (has_min) a = oik_int_max(a, min, is_signed);
  if (has_max) a = oik_int_min(a, max, is_signed);
  return a;
}

OIK_clamp_F(DEF_F) OIK_clamp_I(DEF_I)
