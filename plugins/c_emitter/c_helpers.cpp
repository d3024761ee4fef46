// The C support functions generated kernels call, written once into each NAME.c.
#include "c_ops.hpp"

namespace oi::c_emitter {

// ops.md's min/max (NaN first operand wins, then the second; -0.0 below +0.0) and relu (a zero
// result is +0.0, then the clamp), written as the CPU backend computes them.
const char* const kHelpersC = R"C(#define OI_MINMAX(T, S)                                          \
  static inline T oi_min_##S(T a, T b) {                          \
    if (isnan(a)) return a;                                       \
    if (isnan(b)) return b;                                       \
    if (a == b) return signbit(a) ? a : b;                        \
    return a < b ? a : b;                                         \
  }                                                               \
  static inline T oi_max_##S(T a, T b) {                          \
    if (isnan(a)) return a;                                       \
    if (isnan(b)) return b;                                       \
    if (a == b) return signbit(a) ? b : a;                        \
    return a > b ? a : b;                                         \
  }                                                               \
  static inline T oi_relu_##S(T a, T alpha, T lo, T hi) {         \
    T y = a >= 0 ? a : alpha * a;                                 \
    if (y == 0) y = 0;                                            \
    if (y < lo) y = lo;                                           \
    if (y > hi) y = hi;                                           \
    return y;                                                     \
  }
OI_MINMAX(float, f)
OI_MINMAX(double, d)
static inline int32_t oi_min_i(int32_t a, int32_t b) { return b < a ? b : a; }
/* An already rounded float to i32, saturating; NaN gives 0 (ops.md cast). */
static inline int32_t oi_to_i32_d(double r) {
  if (isnan(r)) return 0;
  if (r >= 2147483647.0) return INT32_MAX;
  if (r <= -2147483648.0) return INT32_MIN;
  return (int32_t)r;
}
static inline int32_t oi_to_i32_f(float r) { return oi_to_i32_d((double)r); }
static inline int32_t oi_max_i(int32_t a, int32_t b) { return b > a ? b : a; }

)C";

}  // namespace oi::c_emitter
