/* relu: y = a >= 0 ? a : alpha * a, a zero result is +0.0, then clamped to
 * [clamp_min, clamp_max] (ops.md); the settings are converted to the compute type first.
 * Integers wrap in alpha * a at the dtype's width; their bounds are optional. */
#include "oik_ew.h"

static inline float relu_f(float a, float alpha, float lo, float hi) {
  float y = a >= 0 ? a : alpha * a;
  if (y == 0) y = 0;
  if (y < lo) y = lo;
  if (y > hi) y = hi;
  return y;
}
static inline double relu_d(double a, double alpha, double lo, double hi) {
  double y = a >= 0 ? a : alpha * a;
  if (y == 0) y = 0;
  if (y < lo) y = lo;
  if (y > hi) y = hi;
  return y;
}
static inline int64_t relu_i(int64_t a, int64_t alpha, int has_lo, int64_t lo, int has_hi,
                             int64_t hi, int bits) {
  int64_t y = a >= 0 ? a : oik_wrap_to(oik_wmul(alpha, a), bits, 1);
  if (has_lo && y < lo) y = lo;
  if (has_hi && y > hi) y = hi;
  return y;
}

#define RELU_F(a, T) \
  OIK_PICK(a, relu_f, relu_d)(a, (oik_ct_##T)alpha, (oik_ct_##T)clamp_min, (oik_ct_##T)clamp_max)
#define RELU_I(a, T) relu_i(a, alpha, has_min, clamp_min, has_max, clamp_max, OIK_BITS_##T)
#define DEF_F(T) OIK_EW1_SAME_P(relu, T, (double alpha, double clamp_min, double clamp_max), RELU_F)
#define DEF_I(T)                                                                                  \
  OIK_EW1_SAME_P(relu, T,                                                                         \
                 (int64_t alpha, int has_min, int64_t clamp_min, int has_max, int64_t clamp_max), \
                 RELU_I)

OIK_relu_F(DEF_F) OIK_relu_I(DEF_I)
