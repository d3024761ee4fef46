// ops-nn.md's elementwise math on f32 computed in f32 arithmetic, for devices without
// shaderFloat64 (the Vulkan backend's ew_math32 variants, and the glsl emitter whenever the device
// description has no fp64): exp, log, sqrt, rsqrt, sin, cos, tanh, erf, sigmoid, silu, gelu (both
// forms), pow and fma, each a function from f32 bits to f32 bits with NaN, infinities, signed
// zeros and subnormals decided on the bits as math_f64.glsl's callers decide them. GLSL's own
// exp, log, sin, ... are not used (Vulkan allows 3 ulp and more, absolute errors for sin/cos).
//
// Only IEEE f32 add, subtract and multiply are relied on to be exact (Vulkan requires them
// correctly rounded), never a fused fma (Vulkan does not promise one): exact products are
// Dekker's (m32_two_prod), and every float local whose rounding matters is `precise`, so no
// compiler contracts or reassociates them. Division and sqrt of the driver only give first estimates that a residual
// corrects. Where one rounding of an intermediate would cost too much, values are float-float
// (a vec2 (hi, lo), hi + lo): argument reductions, the leading terms of each series, the final
// additions. Each result is the float-float value rounded once (m32_bits: also into the
// subnormals with integer code, from the exact sum, so a device that flushes subnormals still
// gets them), so its error is half an ulp plus the float-float evaluation's, which stays below
// a few 2^-28 relative: within 1 ulp of the exact result (measured: docs/vulkan.md, the
// vulkan_f32_math_test bound test). sqrt is correctly rounded (integer residuals).
//   exp, expm1: a = k ln2 + r (ln2 in three parts, exact products), e^r - 1 = r + r^2/2 +
//     r^3 P(r) with r^2 exact and P Taylor's to r^6; a may be float-float (pow, erfc, gelu).
//   log: m 2^e with m in [sqrt(1/2), sqrt(2)], ln m = 2 atanh f = 2f + 2f^3/3 + f^5 T(f^2),
//     f = (m-1)/(m+1) float-float (relative error below 2^-40, as pow needs).
//   sin, cos: |x| 2/pi reduced exactly for every finite f32 with 32-bit integer products by a
//     96-bit window of 2/pi (Payne-Hanek: no range limit), the remainder's 64 fraction bits
//     times pi/2 float-float, then Taylor polynomials with -r^3/6 and -r^2/2 float-float.
//   tanh = E / (E + 2), E = e^(2|x|) - 1; sigmoid = 1 / (1 + e^-x) (e^x / (1 + e^x) below 0);
//   silu = x sigmoid(x); gelu tanh form = x sigmoid(2u), u float-float.
//   erf: x P(x^2) for |x| < 1 (Taylor to x^25), 1 - erfc above; erfc(z) = e^(-z^2) F(z) for
//     z >= 1, F fitted on six intervals (math_f32_coefficients.py); gelu = x/2 (1 + erf(x/sqrt 2))
//     with x/sqrt 2 float-float (erfc's relative error would grow with z otherwise).
//   pow = e^(y ln|x|) with ln|x| and the product float-float; C99's special cases on the bits.
//   fma: Dekker's exact product, a two-sum and a sum rounded to odd (Boldo and Melquiond), so
//     one rounding, on operands scaled into a safe range.
// Needs div_f32.glsl (split_f32, pow2_f32) before it.
#ifndef OPENINFER_MATH_F32_GLSL
#define OPENINFER_MATH_F32_GLSL
#include "div_f32.glsl"

// ---- constants: plugins/vulkan/shaders/math_f32_coefficients.py ----
// ln 2 = M32_LN2_1 + M32_LN2_2 + M32_LN2_3 (+ 6.39e-19)
const float M32_LN2_1 = 0.693145752;
const float M32_LN2_2 = 1.42859062e-6;
const float M32_LN2_3 = 1.61985095e-11;
const float M32_INV_LN2 = 1.44269502;
// 2/pi = sum of M32_TWO_OVER_PI[j] 2^(-32 (j + 1)) (+ less than 2^-320)
const uint M32_TWO_OVER_PI[10] = uint[](
    0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u,
    0x3C439041u, 0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u);
const vec2 M32_PIO2 = vec2(1.57079637, -4.37113883e-8);
const vec2 M32_SIXTH = vec2(0.166666672, -4.96705388e-9);
const vec2 M32_TWO_THIRDS = vec2(0.666666687, -1.98682155e-8);
const vec2 M32_TWO_OVER_SQRTPI = vec2(1.12837923, -5.86353828e-8);
const vec2 M32_SQRT_HALF = vec2(0.707106769, 1.21016175e-8);
const vec2 M32_SQRT_2_OVER_PI = vec2(0.797884583, -2.26703403e-8);
const vec2 M32_GELU_TANH_C3 = vec2(0.0356774069, 1.19941623e-9);
// (e^r - 1 - r - r^2/2) / r^3 to r^6: truncation 6.89e-12 for |r| <= ln2/2
const float M32_EXP_P[7] = float[](
    2.75573188e-6, 2.48015876e-5, 1.98412701e-4, 0.00138888892,
    0.00833333377, 0.0416666679, 0.166666672);
// ln m = 2f + 2f^3/3 + f^5 T(f^2), f = (m-1)/(m+1), T to f^12: truncation 3.32e-14 of 2f
const float M32_LOG_T[7] = float[](
    0.117647059, 0.13333334, 0.15384616, 0.181818187,
    0.222222224, 0.285714298, 0.400000006);
// sin r = r - r^3/6 + r^5 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4: truncation
// 2.6e-14, 3.9e-13
const float M32_SIN_S[5] = float[](
    1.60590444e-10, -2.50521079e-8, 2.75573188e-6, -1.98412701e-4,
    0.00833333377);
const float M32_COS_C[5] = float[](
    2.08767559e-9, -2.755732e-7, 2.48015876e-5, -0.00138888892,
    0.0416666679);
// erf(x)/x = sum c_n t^n, t = x^2 < 1, lowest first; truncation 6.73e-12; c0..c2 float-float
// (tails in _LO)
const float M32_ERF_C[13] = float[](
    1.12837923, -0.376126379, 0.112837918, -0.0268661715,
    0.00522397785, -8.54832702e-4, 1.20553326e-4, -1.49256502e-5,
    1.64621144e-6, -1.63658441e-7, 1.48071928e-8, -1.22905552e-9,
    9.4227591e-11);
const float M32_ERF_LO[3] = float[](
    -5.86353828e-8, -1.02571942e-8, -1.39319001e-9);
// erfc(z) e^(z^2) on [1, 2] [2, 3] [3, 4] [4, 6] [6, 8] [8, 12], degree 10 in w = (z - centre) *
// scale (centres 1.5, 2.5, 3.5, 5.0, 7.0, 10.0; scales 2.0, 2.0, 2.0, 1.0, 1.0, 0.5), lowest
// first; fit error below 2.25e-11 relative
const float M32_ERFC_C[66] = float[](
    0.321585417, -0.0818114579, 0.0190377608, -0.00411636243,
    8.36083724e-4, -1.608155e-4, 2.94714973e-5, -5.16148566e-6,
    8.7084976e-7, -1.51637835e-7, 2.37667024e-8, 0.21080637,
    -0.0371736735, 0.00623449916, -0.00100019609, 1.54189795e-4,
    -2.29248835e-5, 3.29720524e-6, -4.59534448e-7, 6.23044016e-8,
    -8.60724825e-9, 1.10600729e-9, 0.155293658, -0.0206617881,
    0.00266528339, -3.34134296e-4, 4.07928965e-5, -4.85841474e-6,
    5.65340258e-7, -6.43342588e-8, 7.17392501e-9, -8.09512624e-10,
    8.67739491e-11, 0.110704638, -0.0213327892, 0.00404068874,
    -7.52896653e-4, 1.3810239e-4, -2.49547265e-5, 4.44447323e-6,
    -7.78719766e-7, 1.34978578e-7, -2.50309302e-8, 4.22168789e-9,
    0.0798000544, -0.0111784069, 0.0015512089, -2.13296036e-4,
    2.90683074e-5, -3.92717948e-6, 5.26079816e-7, -6.98333409e-8,
    9.20295129e-9, -1.26108812e-9, 1.63491706e-10, 0.0561409928,
    -0.0111186244, 0.00219148211, -4.29902138e-4, 8.39410859e-5,
    -1.63157983e-5, 3.15674879e-6, -6.05598359e-7, 1.16139006e-7,
    -2.46064218e-8, 4.67377959e-9);
const float M32_ERFC_LO[18] = float[](
    -3.39505729e-10, -1.03269848e-9, -8.24560475e-10, -5.72035042e-9,
    1.14162693e-10, 1.1164699e-10, -2.76684586e-9, -8.554632e-10,
    -9.31143565e-11, -3.30838995e-10, -5.59918722e-10, 1.68229888e-10,
    -1.01808673e-10, 3.99158956e-10, 1.63621894e-11, -4.6637999e-11,
    -8.824836e-11, 1.0283295e-10);

// Horner steps written out (constant indices: a loop's index into a constant array may become
// a chain of selects per access on some drivers, as lavapipe's).
#define M32_H(p, x, A, n) p = p * (x) + A[n]

// ---- float-float arithmetic (exact transformations: every local `precise`) ----
vec2 m32_two_sum(float a, float b) {  // a + b = s + e exactly
  precise float s = a + b;
  precise float bb = s - a;
  precise float e = (a - (s - bb)) + (b - bb);
  return vec2(s, e);
}
vec2 m32_fast_two_sum(float a, float b) {  // the same where a's exponent >= b's, or a == 0
  precise float s = a + b;
  precise float e = b - (s - a);
  return vec2(s, e);
}
vec2 m32_split(float a) {  // a = hi + lo, each of at most 12 significant bits (|a| < 2^115)
  precise float c = 4097.0 * a;
  precise float hi = c - (c - a);
  precise float lo = a - hi;
  return vec2(hi, lo);
}
vec2 m32_two_prod(float a, float b) {  // a b = p + e exactly (Dekker), no fma needed
  const vec2 sa = m32_split(a), sb = m32_split(b);
  precise float p = a * b;
  precise float e = ((sa.x * sb.x - p) + sa.x * sb.y + sa.y * sb.x) + sa.y * sb.y;
  return vec2(p, e);
}
vec2 m32_add(vec2 a, vec2 b) {
  const vec2 s = m32_two_sum(a.x, b.x);
  precise float lo = s.y + (a.y + b.y);
  return m32_fast_two_sum(s.x, lo);
}
vec2 m32_add_f(vec2 a, float b) {
  const vec2 s = m32_two_sum(a.x, b);
  precise float lo = s.y + a.y;
  return m32_fast_two_sum(s.x, lo);
}
vec2 m32_mul(vec2 a, vec2 b) {
  const vec2 p = m32_two_prod(a.x, b.x);
  precise float lo = p.y + (a.x * b.y + a.y * b.x);
  return m32_fast_two_sum(p.x, lo);
}
vec2 m32_mul_f(vec2 a, float b) {
  const vec2 p = m32_two_prod(a.x, b);
  precise float lo = p.y + a.y * b;
  return m32_fast_two_sum(p.x, lo);
}
vec2 m32_scale(vec2 a, float s) {  // by a power of two: exact
  precise float hi = a.x * s;
  precise float lo = a.y * s;
  return vec2(hi, lo);
}
vec2 m32_div(vec2 n, vec2 d) {  // the driver's quotient, corrected once with an exact residual
  precise float q1 = n.x / d.x;
  const vec2 p = m32_two_prod(q1, d.x);
  precise float r = (((n.x - p.x) - p.y) + n.y) - q1 * d.y;
  precise float q2 = r / d.x;
  return m32_fast_two_sum(q1, q2);
}

// The bits of (v.x + v.y) 2^k rounded to nearest even, for v > 0 with v.x normal: inf past the
// f32 range; below it the subnormals are rounded with integer code from v's exact sum (ties
// decided by the sign of its tail), so a device that flushes subnormals still gets them.
uint m32_bits(vec2 v, int k) {
  const vec2 s = m32_two_sum(v.x, v.y);
  const uint b = floatBitsToUint(s.x);
  const int e = int(b >> 23) + k;  // the result's biased exponent
  if (e >= 255) return 0x7f800000u;
  if (e >= 1) return (b & 0x7fffffu) | (uint(e) << 23);
  const int sh = 1 - e;
  if (sh > 24) return 0u;  // below half the smallest subnormal
  const uint m = (b & 0x7fffffu) | 0x800000u;
  const uint q = m >> uint(sh), rest = m & ((1u << uint(sh)) - 1u), mid = 1u << uint(sh - 1);
  const bool up = rest > mid || (rest == mid && (s.y > 0.0 || (s.y == 0.0 && (q & 1u) != 0u)));
  return q + (up ? 1u : 0u);
}

// ---- e^x ----
// e^a = 2^k (1 + em1) for a float-float a in [-210, 90]; returns em1 = e^r - 1 (float-float).
// k = round(a / ln2); r = a - k ln2: k M32_LN2_1 and k M32_LN2_2 are exact (15-bit heads) and so
// is a - k M32_LN2_1 (a multiple of min(ulp(a), 2^-15) below 1/2), the rest a two-sum.
// e^r - 1 = r + r^2/2 + r^3 P(r), r^2 exact, P Taylor's (truncation 7e-12): error below 2^-29.
vec2 m32_expm1_r(vec2 a, out int k) {
  const float kf = roundEven(a.x * M32_INV_LN2);
  k = int(kf);
  precise float t = a.x - kf * M32_LN2_1;
  precise float p2 = kf * M32_LN2_2;
  const vec2 r0 = m32_two_sum(t, -p2);
  precise float rl = (r0.y + a.y) - kf * M32_LN2_3;
  const vec2 r = m32_two_sum(r0.x, rl);
  const vec2 q = m32_two_prod(r.x, r.x);
  precise float p = M32_EXP_P[0];
  M32_H(p, r.x, M32_EXP_P, 1);
  M32_H(p, r.x, M32_EXP_P, 2);
  M32_H(p, r.x, M32_EXP_P, 3);
  M32_H(p, r.x, M32_EXP_P, 4);
  M32_H(p, r.x, M32_EXP_P, 5);
  M32_H(p, r.x, M32_EXP_P, 6);
  precise float c3 = (r.x * q.x) * p;
  const vec2 s = m32_two_sum(r.x, 0.5 * q.x);
  precise float lo = s.y + (r.y + (0.5 * q.y + (r.x * r.y + c3)));
  return m32_fast_two_sum(s.x, lo);
}
vec2 m32_exp_df(vec2 a, out int k) {  // e^a = (hi + lo) 2^k, hi + lo in [0.7, 1.42]
  const vec2 e = m32_expm1_r(a, k);
  const vec2 s = m32_fast_two_sum(1.0, e.x);
  precise float lo = s.y + e.y;
  return m32_fast_two_sum(s.x, lo);
}

uint m32_exp(uint x) {
  const uint ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (x != ax) {
    if (ax > 0x42d00000u) return 0u;  // x < -104 (and -inf): below 2^-150
  } else if (ax > 0x42b20000u) {
    return 0x7f800000u;  // x > 89 (and +inf): above the largest float
  }
  int k;
  const vec2 m = m32_exp_df(vec2(uintBitsToFloat(x), 0.0), k);
  return m32_bits(m, k);
}

// ---- ln x ----
// ln(m 2^e), m in [sqrt(1/2), sqrt(2)]: e ln2 + 2f + 2f^3/3 + f^5 T(f^2), f = (m - 1)/(m + 1)
// float-float (m - 1 exact), relative error below 2^-40.
vec2 m32_log_df(float m, int e) {
  precise float u = m - 1.0;
  const vec2 d = m32_fast_two_sum(1.0, m);
  const vec2 f = m32_div(vec2(u, 0.0), d);
  const vec2 f2 = m32_mul(f, f);
  const vec2 f3 = m32_mul(f2, f);
  precise float t = M32_LOG_T[0];
  M32_H(t, f2.x, M32_LOG_T, 1);
  M32_H(t, f2.x, M32_LOG_T, 2);
  M32_H(t, f2.x, M32_LOG_T, 3);
  M32_H(t, f2.x, M32_LOG_T, 4);
  M32_H(t, f2.x, M32_LOG_T, 5);
  M32_H(t, f2.x, M32_LOG_T, 6);
  precise float tail = (f3.x * f2.x) * t;
  vec2 l = m32_add(m32_scale(f, 2.0), m32_mul(f3, M32_TWO_THIRDS));
  l = m32_add_f(l, tail);
  const float ef = float(e);
  precise float e1 = ef * M32_LN2_1;  // exact, as the next
  precise float e2 = ef * M32_LN2_2;
  precise float e3 = ef * M32_LN2_3;
  const vec2 h = m32_two_sum(e1, e2);
  return m32_add(vec2(h.x, h.y + e3), l);
}
// |x| (bits of a finite positive value) as m 2^e with m in [sqrt(1/2), sqrt(2)]
float m32_log_split(uint ax, out int e) {
  const float s = split_f32(ax, e);
  if (s <= 1.41421354) return s;
  e += 1;
  return 0.5 * s;
}

uint m32_log(uint x) {
  const uint ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax == 0u) return 0xff800000u;
  if (x != ax) return 0x7fc00000u;
  if (ax == 0x7f800000u) return x;
  int e;
  const float m = m32_log_split(ax, e);
  const vec2 l = m32_log_df(m, e);
  return floatBitsToUint(l.x);  // normalized: l.x is the rounded sum
}

// ---- sqrt and 1/sqrt ----
// x = m 2^(2j), m in [1, 4) (m_out): returns Y = sqrt(m) 2^23 rounded to nearest, an integer in
// [2^23, 2^24], from the driver's estimate moved until Y(Y - 1) < m 2^46 <= Y(Y + 1), i.e.
// (Y - 1/2)^2 < m 2^46 < (Y + 1/2)^2 (no tie is possible), decided on exact 64-bit products.
bool m32_above(uint ah, uint al, uint bh, uint bl) { return ah > bh || (ah == bh && al > bl); }
uint m32_sqrt_sig(uint ax, out int j, out float m_out) {
  int e;
  const float s = split_f32(ax, e);
  uint m = (floatBitsToUint(s) & 0x7fffffu) | 0x800000u;  // s 2^23
  if ((e & 1) != 0) {
    m <<= 1;
    e -= 1;
  }
  j = e / 2;
  m_out = float(m) * (1.0 / 8388608.0);
  const uint nh = m >> 9, nl = m << 23;  // m 2^46 as 64 bits
  uint y = clamp(uint(sqrt(m_out) * 8388608.0), 0x800000u, 0x1000000u);
  for (int i = 0; i < 8; ++i) {
    uint ph, pl;
    umulExtended(y, y + 1u, ph, pl);
    if (m32_above(nh, nl, ph, pl)) {
      y += 1u;
      continue;
    }
    umulExtended(y - 1u, y, ph, pl);
    if (!m32_above(nh, nl, ph, pl)) {
      y -= 1u;
      continue;
    }
    break;
  }
  return y;
}

uint m32_sqrt(uint x) {  // correctly rounded
  const uint ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax == 0u) return x;
  if (x != ax) return 0x7fc00000u;
  if (ax == 0x7f800000u) return x;
  int j;
  float m;
  const uint y = m32_sqrt_sig(ax, j, m);
  return (uint(j + 127) << 23) + (y - 0x800000u);  // y = 2^24 carries into the exponent
}

uint m32_rsqrt(uint x) {  // 1 / (s + t), s + t = sqrt(m) float-float from the rounded root
  const uint ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax == 0u) return x | 0x7f800000u;
  if (x != ax) return 0x7fc00000u;
  if (ax == 0x7f800000u) return 0u;
  int j;
  float m;
  const uint y = m32_sqrt_sig(ax, j, m);
  const float s = float(y) * (1.0 / 8388608.0);
  const vec2 p = m32_two_prod(s, s);
  precise float rem = (m - p.x) - p.y;  // m - s^2: the first difference exact
  precise float t = rem * (0.5 / s);
  precise float r1 = 1.0 / s;
  const vec2 q = m32_two_prod(r1, s);
  precise float err = ((1.0 - q.x) - q.y) - r1 * t;
  precise float r2 = r1 * err;
  return m32_bits(vec2(r1, r2), -j);
}

// ---- sin, cos ----
// (hi lo) >> s, low 32 bits, for s in [0, 31]
uint m32_funnel(uint hi, uint lo, int s) {
  return s == 0 ? lo : (lo >> uint(s)) | (hi << uint(32 - s));
}
// Word j of 2/pi's table for j in [0, 6], selected with constant indices (j is small).
uint m32_two_over_pi(int j) {
  return j == 0 ? M32_TWO_OVER_PI[0] : j == 1 ? M32_TWO_OVER_PI[1] : j == 2 ? M32_TWO_OVER_PI[2]
         : j == 3 ? M32_TWO_OVER_PI[3] : j == 4 ? M32_TWO_OVER_PI[4] : j == 5 ? M32_TWO_OVER_PI[5]
                                                                         : M32_TWO_OVER_PI[6];
}
// |x| - q pi/2 (float-float) and q mod 4 for a finite |x| >= pi/4 (bits), exact enough for
// every f32: |x| = M 2^E (M of 24 bits) times the bits of 2/pi from bit E - 1 on (earlier bits
// give multiples of 4) in a 96-bit window, a 120-bit integer product P; P 2^-pt is |x| 2/pi
// mod 4 up to 2^-70, its integer part the quadrant, its top 64 fraction bits the remainder.
vec2 m32_reduce_pio2(uint ax, out uint q) {
  const int E = int(ax >> 23) - 150;
  const uint M = (ax & 0x7fffffu) | 0x800000u;
  const int s0 = max(1, E - 1);  // the window's first bit of 2/pi (bit 1 = 2^-1)
  const int o = s0 - 1, j = o >> 5, sh = o & 31;
  const uint t0 = m32_two_over_pi(j), t1 = m32_two_over_pi(j + 1);
  const uint t2 = m32_two_over_pi(j + 2), t3 = m32_two_over_pi(j + 3);
  const uint w0 = sh == 0 ? t0 : (t0 << uint(sh)) | (t1 >> uint(32 - sh));
  const uint w1 = sh == 0 ? t1 : (t1 << uint(sh)) | (t2 >> uint(32 - sh));
  const uint w2 = sh == 0 ? t2 : (t2 << uint(sh)) | (t3 >> uint(32 - sh));
  uint h0, l0, h1, l1, h2, l2, c1, c2, c3;
  umulExtended(M, w2, h2, l2);
  umulExtended(M, w1, h1, l1);
  umulExtended(M, w0, h0, l0);
  const uint p0 = l2, p1 = uaddCarry(h2, l1, c1);
  const uint t = uaddCarry(h1, l0, c2);
  const uint p2 = uaddCarry(t, c1, c3), p3 = h0 + c2 + c3;  // P = p3 p2 p1 p0, below 2^120
  // P 2^-pt = |x| 2/pi mod 4: bits from pt - 64 = 30 .. 56 on, words p0 .. p3 or p1 .. p3
  const int f = s0 + 31 - E;  // pt - 64
  const bool up = f >= 32;
  const uint a = up ? p1 : p0, b = up ? p2 : p1, c = up ? p3 : p2, d = up ? 0u : p3;
  const int fs = f & 31;
  uint fl = m32_funnel(b, a, fs), fh = m32_funnel(c, b, fs);
  q = m32_funnel(d, c, fs) & 3u;
  const bool neg = fh >= 0x80000000u;  // fraction >= 1/2: the next quadrant, r negative
  if (neg) {
    q += 1u;
    fl = ~fl + 1u;
    fh = ~fh + (fl == 0u ? 1u : 0u);
  }
  // the fraction (fh fl) 2^-64 as float-float: three exact pieces of 24, 24 and 16 bits
  const float pa = float(fh >> 8) * 5.9604644775390625e-8;                           // 2^-24
  const float pb = float(((fh & 0xffu) << 16) | (fl >> 16)) * 3.5527136788005009e-15;  // 2^-48
  const float pc = float(fl & 0xffffu) * 5.4210108624275222e-20;                     // 2^-64
  const vec2 v = m32_add_f(m32_two_sum(pa, pb), pc);
  const vec2 r = m32_mul(v, M32_PIO2);
  return neg ? -r : r;
}
// sin r and cos r for |r| <= pi/4 (float-float in and out)
vec2 m32_sin_poly(vec2 r) {
  const vec2 q0 = m32_two_prod(r.x, r.x);
  precise float ql = q0.y + 2.0 * r.x * r.y;
  const vec2 q = vec2(q0.x, ql);
  const vec2 r3 = m32_mul(q, r);
  const vec2 s3 = m32_mul(r3, M32_SIXTH);
  precise float t = M32_SIN_S[0];
  M32_H(t, q.x, M32_SIN_S, 1);
  M32_H(t, q.x, M32_SIN_S, 2);
  M32_H(t, q.x, M32_SIN_S, 3);
  M32_H(t, q.x, M32_SIN_S, 4);
  precise float tail = (r3.x * q.x) * t;
  return m32_add_f(m32_add(r, -s3), tail);
}
vec2 m32_cos_poly(vec2 r) {
  const vec2 q = m32_two_prod(r.x, r.x);
  precise float ql = q.y + 2.0 * r.x * r.y;
  precise float t = M32_COS_C[0];
  M32_H(t, q.x, M32_COS_C, 1);
  M32_H(t, q.x, M32_COS_C, 2);
  M32_H(t, q.x, M32_COS_C, 3);
  M32_H(t, q.x, M32_COS_C, 4);
  precise float tail = (q.x * q.x) * t;
  const vec2 h = m32_fast_two_sum(1.0, -0.5 * q.x);
  precise float lo = h.y + (tail - 0.5 * ql);
  return m32_fast_two_sum(h.x, lo);
}

uint m32_sincos(uint x, bool want_cos) {
  const uint ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax == 0x7f800000u) return 0x7fc00000u;
  if (ax < 0x39800000u) return want_cos ? 0x3f800000u : x;  // |x| < 2^-12: 1, x
  uint q = 0u;
  vec2 r = vec2(uintBitsToFloat(ax), 0.0);
  if (ax > 0x3f490fdbu) r = m32_reduce_pio2(ax, q);  // |x| > pi/4
  if (want_cos) q += 1u;  // cos x = sin(|x| + pi/2)
  const vec2 v = (q & 1u) == 0u ? m32_sin_poly(r) : m32_cos_poly(r);
  const bool flip = ((q & 2u) != 0u) != (x != ax && !want_cos);
  const uint b = floatBitsToUint(v.x);
  return flip ? b ^ 0x80000000u : b;
}
uint m32_sin(uint x) { return m32_sincos(x, false); }
uint m32_cos(uint x) { return m32_sincos(x, true); }

// ---- tanh, sigmoid, silu ----
uint m32_tanh(uint x) {  // E / (E + 2), E = e^(2|x|) - 1
  const uint ax = x & 0x7fffffffu, sgn = x & 0x80000000u;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax < 0x39800000u) return x;                        // |x| < 2^-12 (and zeros): x
  if (ax >= 0x4111999au) return sgn | 0x3f800000u;       // |x| >= 9.1 (and inf): 1
  int k;
  vec2 em1 = m32_expm1_r(vec2(2.0 * uintBitsToFloat(ax), 0.0), k);
  if (k != 0) {  // 2^k (1 + em1) - 1
    const vec2 m = m32_fast_two_sum(1.0, em1.x);
    precise float ml = m.y + em1.y;
    em1 = m32_add_f(m32_scale(vec2(m.x, ml), pow2_f32(k)), -1.0);
  }
  const vec2 t = m32_div(em1, m32_add_f(em1, 2.0));
  return sgn | floatBitsToUint(t.x);
}

// 1 / (1 + e^-a) = m 2^k for a float-float a (e^a / (1 + e^a) below 0).
vec2 m32_sigmoid_df(vec2 a, out int k) {
  k = 0;
  if (a.x > 17.5) return vec2(1.0, 0.0);  // within 2^-25 of 1
  if (a.x < -200.0) {
    k = -400;
    return vec2(1.0, 0.0);
  }
  int j;
  if (a.x >= 0.0) {
    const vec2 e = m32_exp_df(-a, j);  // j >= -26
    return m32_div(vec2(1.0, 0.0), m32_add_f(m32_scale(e, pow2_f32(j)), 1.0));
  }
  const vec2 e = m32_exp_df(a, j);
  if (j < -40) {  // e^a (1 - e^a + ...): within 2^-40
    k = j;
    return e;
  }
  const vec2 ea = m32_scale(e, pow2_f32(j));
  return m32_div(ea, m32_add_f(ea, 1.0));
}

uint m32_sigmoid(uint x) {
  const uint ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return x | 0x400000u;
  const float a = uintBitsToFloat(x);
  if (a > 17.5) return 0x3f800000u;  // +inf too
  if (a < -110.0) return 0u;         // -inf too
  int k;
  const vec2 m = m32_sigmoid_df(vec2(a, 0.0), k);
  return m32_bits(m, k);
}

// x m 2^k for x given by its magnitude bits ax (the sign is the caller's), m > 0 float-float:
// x's significand taken from the bits, so a subnormal x counts even where the device flushes.
uint m32_times_bits(uint ax, vec2 m, int k) {
  int e;
  const float s = split_f32(ax, e);
  return m32_bits(m32_mul_f(m, s), e + k);
}

uint m32_silu(uint x) {  // x sigmoid(x); +inf stays, -inf gives NaN (inf / inf)
  const uint ax = x & 0x7fffffffu, sgn = x & 0x80000000u;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax == 0x7f800000u) return sgn != 0u ? 0x7fc00000u : x;
  if (ax == 0u) return x;
  const float a = uintBitsToFloat(x);
  if (a > 17.5) return x;      // x (1 - e^-x ...) rounds to x
  if (a < -120.0) return sgn;  // below 2^-150: -0
  int k;
  const vec2 m = m32_sigmoid_df(vec2(a, 0.0), k);
  return sgn | m32_times_bits(ax, m, k);
}

// ---- erf, gelu ----
// erf(x) for 0 <= x < 1: x P(x^2), P Taylor's to t^12 with its three leading steps float-float
// and the tail of t = x^2 taken to first order.
vec2 m32_erf_series(float x) {
  const vec2 t = m32_two_prod(x, x);
  precise float h = M32_ERF_C[12];
  M32_H(h, t.x, M32_ERF_C, 11);
  M32_H(h, t.x, M32_ERF_C, 10);
  M32_H(h, t.x, M32_ERF_C, 9);
  M32_H(h, t.x, M32_ERF_C, 8);
  M32_H(h, t.x, M32_ERF_C, 7);
  M32_H(h, t.x, M32_ERF_C, 6);
  M32_H(h, t.x, M32_ERF_C, 5);
  M32_H(h, t.x, M32_ERF_C, 4);
  M32_H(h, t.x, M32_ERF_C, 3);
  vec2 p = m32_add(m32_mul_f(vec2(h, 0.0), t.x), vec2(M32_ERF_C[2], M32_ERF_LO[2]));
  p = m32_add(m32_mul_f(p, t.x), vec2(M32_ERF_C[1], M32_ERF_LO[1]));
  p = m32_add(m32_mul_f(p, t.x), vec2(M32_ERF_C[0], M32_ERF_LO[0]));
  precise float dp = (M32_ERF_C[1] + 2.0 * M32_ERF_C[2] * t.x) * t.y;
  return m32_mul_f(m32_add_f(p, dp), x);
}
// erfc(z) = m 2^k for a float-float z in [1, 12): e^(-z^2) F(z), z^2 float-float, F a fit on
// the interval of z (w = (z - centre) scale: exact), its three leading steps float-float, z's
// tail to first order (F' = 2 z F - 2/sqrt(pi)). Each coefficient is selected from the six
// intervals' by constant indices (no dynamic index into the table).
#define M32_ERFC(n)                                                                     \
  (i == 0 ? M32_ERFC_C[n] : i == 1 ? M32_ERFC_C[11 + n] : i == 2 ? M32_ERFC_C[22 + n] \
   : i == 3 ? M32_ERFC_C[33 + n] : i == 4 ? M32_ERFC_C[44 + n] : M32_ERFC_C[55 + n])
#define M32_ERFC_T(n)                                                                  \
  (i == 0 ? M32_ERFC_LO[n] : i == 1 ? M32_ERFC_LO[3 + n] : i == 2 ? M32_ERFC_LO[6 + n] \
   : i == 3 ? M32_ERFC_LO[9 + n] : i == 4 ? M32_ERFC_LO[12 + n] : M32_ERFC_LO[15 + n])
#define M32_ERFC_H(n) h = h * w + M32_ERFC(n)
#define M32_ERFC_DF(n) f = m32_add(m32_mul_f(f, w), vec2(M32_ERFC(n), M32_ERFC_T(n)))
vec2 m32_erfc_df(vec2 z, out int k) {
  const int i = z.x < 4.0 ? int(z.x) - 1 : z.x < 6.0 ? 3 : z.x < 8.0 ? 4 : 5;
  const float centre = i < 3 ? float(i) + 1.5 : i == 3 ? 5.0 : i == 4 ? 7.0 : 10.0;
  const float scale = i < 3 ? 2.0 : i == 5 ? 0.5 : 1.0;
  precise float w = (z.x - centre) * scale;
  precise float h = M32_ERFC(10);
  M32_ERFC_H(9);
  M32_ERFC_H(8);
  M32_ERFC_H(7);
  M32_ERFC_H(6);
  M32_ERFC_H(5);
  M32_ERFC_H(4);
  M32_ERFC_H(3);
  vec2 f = vec2(h, 0.0);
  M32_ERFC_DF(2);
  M32_ERFC_DF(1);
  M32_ERFC_DF(0);
  precise float df = (2.0 * z.x * f.x - M32_TWO_OVER_SQRTPI.x) * z.y;
  f = m32_add_f(f, df);
  const vec2 z2 = m32_two_prod(z.x, z.x);
  precise float z2l = z2.y + 2.0 * z.x * z.y;
  return m32_mul(m32_exp_df(vec2(-z2.x, -z2l), k), f);
}
#undef M32_ERFC
#undef M32_ERFC_T
#undef M32_ERFC_H
#undef M32_ERFC_DF

uint m32_erf(uint x) {
  const uint ax = x & 0x7fffffffu, sgn = x & 0x80000000u;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax == 0u) return x;
  if (ax >= 0x40800000u) return sgn | 0x3f800000u;  // |x| >= 4 (and inf): 1
  if (ax < 0x39800000u) {  // |x| < 2^-12: 2/sqrt(pi) x (1 - x^2/3), x = s 2^e from the bits
    int e;
    const float s = split_f32(ax, e);
    precise float x2 = 2 * e >= -126 ? s * s * pow2_f32(2 * e) : 0.0;
    const vec2 c = m32_mul_f(M32_TWO_OVER_SQRTPI, s);
    precise float corr = -c.x * x2 * (1.0 / 3.0);
    return sgn | m32_bits(m32_add_f(c, corr), e);
  }
  const float a = uintBitsToFloat(ax);
  if (a < 1.0) return sgn | floatBitsToUint(m32_erf_series(a).x);
  int k;
  const vec2 c = m32_erfc_df(vec2(a, 0.0), k);  // k >= -25
  return sgn | floatBitsToUint(m32_add_f(-m32_scale(c, pow2_f32(k)), 1.0).x);
}

// gelu = x Phi(x), Phi(x) = (1 + erf(z)) / 2 = erfc(-z) / 2, z = x / sqrt(2) float-float:
// erf's series below |z| = 1 (plus 2/sqrt(pi) e^(-z^2) times z's tail), erfc above.
uint m32_gelu(uint x) {
  const uint ax = x & 0x7fffffffu, sgn = x & 0x80000000u;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax == 0x7f800000u) return sgn != 0u ? 0x7fc00000u : x;
  if (ax == 0u) return x;
  const float a = uintBitsToFloat(x);
  if (a >= 10.0) return x;     // Phi = 1 - 2^-77 ...
  if (a <= -15.5) return sgn;  // below 2^-150: -0
  const vec2 z = m32_mul_f(M32_SQRT_HALF, a);
  vec2 phi;
  int k = 0;
  if (abs(z.x) < 1.0) {
    vec2 er = m32_erf_series(abs(z.x));
    if (z.x < 0.0) er = -er;
    precise float u = z.x * z.x;  // e^-u to u^6 (only scales z's tail, within 2^-25 of erf)
    precise float g = 1.0 - u * (1.0 - u * 0.5 * (1.0 - u * (1.0 / 3.0) * (1.0 - u * 0.25 *
                      (1.0 - u * 0.2 * (1.0 - u * (1.0 / 6.0))))));
    precise float d = M32_TWO_OVER_SQRTPI.x * g * z.y;
    phi = m32_scale(m32_add_f(m32_add_f(er, d), 1.0), 0.5);
  } else if (z.x > 0.0) {
    const vec2 c = m32_erfc_df(z, k);  // k >= -75 for z < 7.1
    phi = m32_add_f(-m32_scale(c, pow2_f32(k - 1)), 1.0);
    k = 0;
  } else {
    phi = m32_erfc_df(-z, k);
    k -= 1;
  }
  return sgn | m32_times_bits(ax, phi, k);
}

// gelu, tanh form: x / (1 + e^(-2u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)
// float-float (its absolute error is the result's relative error).
uint m32_gelu_tanh(uint x) {
  const uint ax = x & 0x7fffffffu, sgn = x & 0x80000000u;
  if (ax > 0x7f800000u) return x | 0x400000u;
  if (ax == 0x7f800000u) return sgn != 0u ? 0x7fc00000u : x;
  if (ax == 0u) return x;
  const float a = uintBitsToFloat(x);
  if (a >= 10.0) return x;     // 2u > 87
  if (a <= -12.0) return sgn;  // 2u < -142: below 2^-150
  const vec2 x3 = m32_mul_f(m32_two_prod(a, a), a);
  const vec2 u = m32_add(m32_mul_f(M32_SQRT_2_OVER_PI, a), m32_mul(M32_GELU_TANH_C3, x3));
  int k;
  const vec2 s = m32_sigmoid_df(m32_scale(u, 2.0), k);
  return sgn | m32_times_bits(ax, s, k);
}

// ---- pow ----
bool m32_is_integer(uint ay) {  // magnitude bits of a finite value
  const int e = int(ay >> 23) - 127;
  if (ay == 0u || e >= 23) return true;
  if (e < 0) return false;
  return (ay & ((1u << uint(23 - e)) - 1u)) == 0u;
}
bool m32_is_odd(uint ay) {
  const int e = int(ay >> 23) - 127;
  if (e < 0 || e > 23 || !m32_is_integer(ay)) return false;
  return (((ay & 0x7fffffu) | 0x800000u) >> uint(23 - e) & 1u) != 0u;
}
// pow as C99 (math_f64.glsl's callers): pow(x, +-0) = pow(1, y) = 1 even for NaN, otherwise
// NaN in, NaN out; pow(-1, +-inf) = 1; zeros and infinities signed by an odd integer y; a
// negative x needs an integer y.
uint m32_pow(uint x, uint z) {
  const uint ax = x & 0x7fffffffu, az = z & 0x7fffffffu;
  if (az == 0u || x == 0x3f800000u) return 0x3f800000u;
  if (ax > 0x7f800000u || az > 0x7f800000u) return 0x7fc00000u;
  if (az == 0x7f800000u) {
    if (ax == 0x3f800000u) return 0x3f800000u;
    return (ax > 0x3f800000u) == (z == 0x7f800000u) ? 0x7f800000u : 0u;
  }
  const bool xneg = x != ax, zneg = z != az;
  const uint sign = xneg && m32_is_odd(az) ? 0x80000000u : 0u;
  if (ax == 0u) return zneg ? sign | 0x7f800000u : sign;
  if (ax == 0x7f800000u) return zneg ? sign : sign | 0x7f800000u;
  if (xneg && !m32_is_integer(az)) return 0x7fc00000u;
  if (ax == 0x3f800000u) return sign | 0x3f800000u;  // (-1)^y, y an integer of any size
  int e;
  const float m = m32_log_split(ax, e);
  const vec2 l = m32_log_df(m, e);
  const float y = uintBitsToFloat(z);
  precise float p = y * l.x;  // |ln|x|| >= 2^-24 here: |y| < 2^31 past these tests
  if (p > 90.0) return sign | 0x7f800000u;
  if (p < -105.0) return sign;
  int k;
  const vec2 v = m32_exp_df(m32_mul_f(l, y), k);
  return sign | m32_bits(v, k);
}

// ---- fma ----
// One rounding of a b + c (Boldo and Melquiond's emulation): a b = p + pe (Dekker), p + c =
// s + se (two-sum), then s + RO(se + pe) rounded once, RO rounding to odd. Exact where nothing
// over- or underflows, which the operands' significands (from the bits) and a power-of-two
// scale ensure: a c below 2^-50 of a b only breaks ties, so it is replaced by 2^-53 of a b.
uint m32_fma(uint a, uint b, uint c) {
  const uint aa = a & 0x7fffffffu, ab = b & 0x7fffffffu, ac = c & 0x7fffffffu;
  if (aa > 0x7f800000u || ab > 0x7f800000u || ac > 0x7f800000u) return 0x7fc00000u;
  const uint psign = (a ^ b) & 0x80000000u;
  if (aa == 0x7f800000u || ab == 0x7f800000u) {  // inf * 0 and inf - inf: NaN
    if (aa == 0u || ab == 0u || (ac == 0x7f800000u && c != (psign | 0x7f800000u)))
      return 0x7fc00000u;
    return psign | 0x7f800000u;
  }
  if (ac == 0x7f800000u) return c;
  if (aa == 0u || ab == 0u) return ac != 0u ? c : psign & c;  // -0 only for -0 + -0
  int ea, eb, ec = 0;
  const float sa = split_f32(aa, ea), sb = split_f32(ab, eb);
  const int eab = ea + eb;
  float sc = 0.0;
  if (ac != 0u) {
    sc = split_f32(ac, ec);
    const int d = ec - eab;
    if (d > 50) return c;  // |a b| < ulp(c) / 4
    sc = d < -50 ? 1.1102230246251565e-16 : sc * pow2_f32(d);  // 2^-53
    if ((c ^ psign) >= 0x80000000u) sc = -sc;  // the sign relative to a b's
  }
  const vec2 p = m32_two_prod(sa, sb);
  const vec2 s = m32_two_sum(p.x, sc);
  const vec2 v = m32_two_sum(s.y, p.y);
  uint vb = floatBitsToUint(v.x);
  if (v.y != 0.0 && (vb & 1u) == 0u) vb = (v.y > 0.0) == (v.x > 0.0) ? vb + 1u : vb - 1u;
  const vec2 t = m32_two_sum(s.x, uintBitsToFloat(vb));
  if (t.x == 0.0) return 0u;  // an exact zero sum: +0
  const uint tsign = t.x < 0.0 ? 0x80000000u : 0u;
  return (psign ^ tsign) | m32_bits(t.x < 0.0 ? -t : t, eab);
}

#endif
