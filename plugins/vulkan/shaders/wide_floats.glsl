// f64 tensors in uint[] buffers (two words a value, the low word first) and the f64 functions
// the row, spatial, attention and reduction shaders need in their -DF64 variants: GLSL has no
// f64 exp or log, and Vulkan promises f64 sqrt and division only f32-like precision, so each is
// written out (math_f64.glsl) or refined here. NaN and inf are tested on the bits (exact on any
// driver, float controls or not).
#ifndef OPENINFER_WIDE_FLOATS_GLSL
#define OPENINFER_WIDE_FLOATS_GLSL
#include "math_f64.glsl"

#define LOAD_F64(buf, k) packDouble2x32(uvec2(buf[2u * (k)], buf[2u * (k) + 1u]))
#define STORE_F64(buf, k, v)                           \
  {                                                    \
    const uvec2 w_ = unpackDouble2x32(v);              \
    buf[2u * (k)] = w_.x;                              \
    buf[2u * (k) + 1u] = w_.y;                         \
  }

const uint F64_EXP = 0x7ff00000u;

bool is_nan_f64(double v) {
  const uvec2 w = unpackDouble2x32(v);
  const uint hi = w.y & 0x7fffffffu;
  return hi > F64_EXP || (hi == F64_EXP && w.x != 0u);
}
bool is_inf_f64(double v) {
  const uvec2 w = unpackDouble2x32(v);
  return (w.y & 0x7fffffffu) == F64_EXP && w.x == 0u;
}
double nan_f64() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
double neg_inf_f64() { return packDouble2x32(uvec2(0u, 0xfff00000u)); }

// e^x for every double: NaN stays NaN, -inf gives 0, +inf gives +inf.
double exp_any_f64(double x) {
  if (is_nan_f64(x)) return x;
  return exp_f64(x);
}

// log x for every double: log 0 = -inf, log of a negative is NaN, subnormals scaled up first.
double log_any_f64(double x) {
  if (is_nan_f64(x)) return x;
  if (x == 0.0LF) return neg_inf_f64();
  if (x < 0.0LF) return nan_f64();
  if (is_inf_f64(x)) return x;
  if (x < 2.2250738585072014e-308LF) {  // subnormal: times 2^54, exactly
    return log_f64(x * 18014398509481984.0LF) - 54.0LF * LN2_HI - 54.0LF * LN2_LO;
  }
  return log_f64(x);
}

// sqrt x to double precision whatever the driver's sqrt does: one Newton step from its
// estimate r with the residual x - r^2 computed exactly (Dekker's split of r into two 26-bit
// halves; a driver's fma need not be fused).
double sqrt_any_f64(double x) {
  if (is_nan_f64(x) || x == 0.0LF) return x;
  if (x < 0.0LF) return nan_f64();  // -inf too
  if (is_inf_f64(x)) return x;
  const double r = sqrt(x);
  precise double big = r * 134217729.0LF;  // 2^27 + 1
  precise double hi = big - (big - r);
  precise double lo = r - hi;
  precise double residual = ((x - hi * hi) - 2.0LF * hi * lo) - lo * lo;
  return r + residual / (2.0LF * r);
}

#endif
