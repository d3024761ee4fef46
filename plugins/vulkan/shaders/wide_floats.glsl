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

// x - r^2 for r near sqrt(x), exactly enough (Dekker's split of r into two 26-bit halves; a
// driver's fma need not be fused).
double sqrt_residual(double x, double r) {
  precise double big = r * 134217729.0LF;  // 2^27 + 1
  precise double hi = big - (big - r);
  precise double lo = r - hi;
  precise double residual = ((x - hi * hi) - 2.0LF * hi * lo) - lo * lo;
  return residual;
}

// Exact sums and products as hi + lo (dvec2), with no fma (a driver's need not be fused).
dvec2 dd_two_sum(double a, double b) {  // a + b exactly
  precise double s = a + b;
  precise double bv = s - a;
  precise double err = (a - (s - bv)) + (b - bv);
  return dvec2(s, err);
}
dvec2 dd_split(double a) {  // two halves of at most 26 bits (|a| < 2^996)
  precise double big = a * 134217729.0LF;  // 2^27 + 1
  precise double hi = big - (big - a);
  precise double lo = a - hi;
  return dvec2(hi, lo);
}
dvec2 dd_two_prod(double a, double b) {  // a * b exactly (barring underflow)
  const dvec2 x = dd_split(a), y = dd_split(b);
  precise double p = a * b;
  precise double err = ((x.x * y.x - p) + x.x * y.y + x.y * y.x) + x.y * y.y;
  return dvec2(p, err);
}
// fma(a, b, c) rounded once on any driver (Vulkan lets a driver's fma round twice): the exact
// product and sum as double-doubles, the low parts added rounding to odd, then one rounding to
// nearest (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums", 2008). Where the
// product's exponent leaves that safe range (an operand subnormal, |a| or |b| >= 2^990, the
// product below 2^-900 or above 2^1000) and for inf and NaN it is a * b + c as the driver
// computes it.
double fma_any_f64(double a, double b, double c) {
  const int ea = int((unpackDouble2x32(a).y >> 20) & 0x7ffu);
  const int eb = int((unpackDouble2x32(b).y >> 20) & 0x7ffu);
  const int e = ea + eb - 2046;
  if (ea == 0 || eb == 0 || ea > 2013 || eb > 2013 || e < -900 || e > 1000 || is_nan_f64(c) ||
      is_inf_f64(c)) {
    precise double r = a * b + c;
    return r;
  }
  const dvec2 u = dd_two_prod(a, b);
  const dvec2 t = dd_two_sum(c, u.x);
  const dvec2 v = dd_two_sum(t.y, u.y);
  uvec2 w = unpackDouble2x32(v.x);
  if (v.y != 0.0LF && (w.x & 1u) == 0u) {  // inexact: to the odd neighbour, toward v.y
    if ((v.x > 0.0LF) == (v.y > 0.0LF)) {
      w.x += 1u;
      if (w.x == 0u) w.y += 1u;
    } else {
      if (w.x == 0u) w.y -= 1u;
      w.x -= 1u;
    }
  }
  precise double r = t.x + packDouble2x32(w);
  return r;
}

// The neighbours of a positive finite double.
double next_up_f64(double v) {
  uvec2 w = unpackDouble2x32(v);
  w.x += 1u;
  if (w.x == 0u) w.y += 1u;
  return packDouble2x32(w);
}
double next_down_f64(double v) {
  uvec2 w = unpackDouble2x32(v);
  if (w.x == 0u) w.y -= 1u;
  w.x -= 1u;
  return packDouble2x32(w);
}

// sqrt x correctly rounded whatever the driver's sqrt does: x scaled by an even power of two
// into [1, 4), the driver's estimate refined by a Newton step, then moved to the neighbour
// whose rounding interval holds sqrt x, decided on exact residuals (no tie is possible).
double sqrt_any_f64(double x) {
  if (is_nan_f64(x) || x == 0.0LF) return x;
  if (x < 0.0LF) return nan_f64();  // -inf too
  if (is_inf_f64(x)) return x;
  int pre = 0;  // subnormals: times 2^108 first
  if (x < 2.2250738585072014e-308LF) {
    x *= 324518553658426726783156020576256.0LF;
    pre = 54;
  }
  const int e = int(unpackDouble2x32(x).y >> 20) - 1023, k = e >> 1;  // floor(e / 2)
  const double m = x * pow2_f64(-2 * k);  // in [1, 4), exactly
  double y = sqrt(m);
  y = y + sqrt_residual(m, y) / (2.0LF * y);
  for (int i = 0; i < 2; ++i) {
    const double res = sqrt_residual(m, y);
    const double u = next_up_f64(y) - y, d = y - next_down_f64(y);
    // (the residuals, products by powers of two and differences below are exact at m's scale)
    precise double above = res - y * u;  // m > (y + u/2)^2 when above > u^2 / 4
    precise double below = res + y * d;  // m < (y - d/2)^2 when below < d^2 / 4
    if (above > 0.25LF * u * u) {
      y += u;
    } else if (below < 0.25LF * d * d) {
      y -= d;
    }
  }
  return y * pow2_f64(k - pre);
}

#endif
