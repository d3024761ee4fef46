// sin, cos, erf, erfc, gelu and pow with f64 results (ew64.comp's -DF64 -DMATH_FULL build):
// ops-nn.md wants them within 4 ulp for every finite double, and GLSL has none of them for
// doubles. Written with plain f64 arithmetic plus double-double (hi + lo) steps where one
// rounding would cost too much:
//  - sin/cos: |x| <= pi/4 directly; beyond, x 2/pi computed exactly from 53-bit x times a
//    224-bit window of 2/pi in 32-bit words (Payne-Hanek: the window starts where the product
//    stops being a multiple of 4, so every finite double, up to 2^1024, reduces to a
//    double-double remainder with a relative error below 2^-76), then Taylor polynomials.
//  - exp of a double-double (pow, erfc): Cody-Waite with ln2 in two parts, Taylor to r^16.
//  - log as a double-double (pow): 2 atanh((m-1)/(m+1)) with the leading terms in double-double.
//  - erf: the Taylor series summed in double-double for |x| < 2 (cancels by at most e^4);
//    erfc by its continued fraction (60 levels) times e^(-x^2) for |x| >= 2.
// Measured against mpmath: below 0.7 ulp (sin, cos, erf, pow) and 1.4 ulp (erfc). NaN,
// infinities, signed zeros and subnormals are decided on the bits, as C99/libm gives them.
// No fma is relied on (a driver's need not be fused): products are split as Dekker does. Loops
// are marked [[dont_unroll]] (GL_EXT_control_flow_attributes, enabled by the includer): unrolled,
// they would triple the size of the SPIR-V.
#ifndef OPENINFER_MATH_F64_FULL_GLSL
#define OPENINFER_MATH_F64_FULL_GLSL
#include "wide_floats.glsl"

// f64 bits as (low, high) words: zero and NaN tests (exact on any driver).
bool is_zero_word_pair(uvec2 v) { return ((v.y & 0x7fffffffu) | v.x) == 0u; }
bool is_nan_word_pair(uvec2 v) {
  const uint hi = v.y & 0x7fffffffu;
  return hi > 0x7ff00000u || (hi == 0x7ff00000u && v.x != 0u);
}

// ---- double-double arithmetic: a value as hi + lo (dvec2), |lo| <= ulp(hi) / 2 ----
// (dd_two_sum, dd_split and dd_two_prod: wide_floats.glsl)
dvec2 dd_fast_two_sum(double a, double b) {  // a + b exactly where |a| >= |b|
  precise double s = a + b;
  precise double err = b - (s - a);
  return dvec2(s, err);
}
dvec2 dd_mul(dvec2 a, dvec2 b) {
  precise dvec2 p = dd_two_prod(a.x, b.x);
  precise double lo = p.y + (a.x * b.y + a.y * b.x);
  return dd_fast_two_sum(p.x, lo);
}
dvec2 dd_add(dvec2 a, dvec2 b) {
  precise dvec2 s = dd_two_sum(a.x, b.x);
  precise double lo = s.y + (a.y + b.y);
  return dd_fast_two_sum(s.x, lo);
}
dvec2 dd_div_d(dvec2 a, double d) {  // a / d
  precise double q = a.x / d;
  precise dvec2 p = dd_two_prod(q, d);
  precise double r = (((a.x - p.x) - p.y) + a.y) / d;
  return dd_fast_two_sum(q, r);
}

// a / b rounded within about half an ulp whatever the driver's division does (Vulkan promises
// f64 division only f32-like precision): one correction from the exact remainder, with a and b
// first scaled by powers of two where the products of the correction would leave the range.
double div_f64(double a, double b) {
  precise double q = a / b;
  if (is_nan_f64(q) || is_inf_f64(q) || q == 0.0LF || is_inf_f64(b)) return q;
  double post = 1.0LF;
  if (abs(b) > 8.4e270LF) {  // 2^900
    b *= pow2_f64(-600);
    post = pow2_f64(-600);
  } else if (abs(b) < 1.2e-271LF) {
    b *= pow2_f64(600);
    post = pow2_f64(600);
  }
  q = a / b;
  if (abs(q) < 1.2e-271LF) {
    a *= pow2_f64(600);
    post *= pow2_f64(-600);
  } else if (abs(q) > 8.4e270LF) {
    a *= pow2_f64(-600);
    post *= pow2_f64(600);
  }
  q = a / b;
  const dvec2 p = dd_two_prod(q, b);
  precise double r = ((a - p.x) - p.y) / b;
  precise double corrected = q + r;
  return corrected * post;  // rounds again only into subnormals
}

// v 2^k for |k| < 2045: two factors, so that only the last product rounds (into subnormals).
double scale_f64(double v, int k) {
  const int k1 = k >> 1;
  return v * pow2_f64(k1) * pow2_f64(k - k1);
}

// ---- sin and cos ----
// 2/pi in 32-bit words, most significant first: 2/pi = sum of TWO_OVER_PI_32[j] 2^(-32 (j+1)).
const uint TWO_OVER_PI_32[40] = uint[](
    0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u, 0xFE5163ABu,
    0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu,
    0xE88235F5u, 0x2EBB4484u, 0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu,
    0xBDF9283Bu, 0x1FF897FFu, 0xDE05980Fu, 0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u,
    0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu, 0x3D0739F7u, 0x8A5292EAu, 0x6BFB5FB1u,
    0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu, 0xF0CFBC20u, 0x9AF4361Du);
const dvec2 PIO2_DD = dvec2(1.5707963267948966LF, 6.123233995736766e-17LF);

// 32 bits of the 9-word product p (least significant word first) from bit `pos` up; bits
// below 0 read as 0.
uint product_bits(uint p[9], int pos) {
  if (pos <= -32) return 0u;
  if (pos < 0) return p[0] << uint(-pos);
  const int w = pos >> 5;
  const uint sh = uint(pos & 31);
  const uint lo = w < 9 ? p[w] : 0u, hi = w + 1 < 9 ? p[w + 1] : 0u;
  return sh == 0u ? lo : (lo >> sh) | (hi << (32u - sh));
}

// |x| 2/pi for a finite |x| >= pi/4 (bits w, sign ignored) mod 4, exactly: |x| = m 2^e with
// m a 53-bit integer; the words of 2/pi whose products with m are multiples of 4 are left out,
// the next seven (224 bits) multiplied with m exactly. Returns the nearest quadrant in q and
// |x| - q pi/2 as a double-double.
dvec2 reduce_pio2_f64(uvec2 w, out int q) {
  const int e = int((w.y >> 20) & 0x7ffu) - 1075;
  const uint m[2] = uint[](w.x, (w.y & 0xfffffu) | 0x100000u);
  const int k0 = e >= 2 ? (e - 2) >> 5 : 0;  // words before k0 give multiples of 4
  uint p[9] = uint[](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  [[dont_unroll]] for (int a = 0; a < 2; ++a) {
    uint carry = 0u;
    [[dont_unroll]] for (int b = 0; b < 7; ++b) {
      uint hi, lo, c1, c2;
      umulExtended(m[a], TWO_OVER_PI_32[k0 + 6 - b], hi, lo);
      const uint s1 = uaddCarry(p[a + b], lo, c1);
      p[a + b] = uaddCarry(s1, carry, c2);
      carry = hi + c1 + c2;  // hi <= 2^32 - 2: no overflow
    }
    p[a + 7] = carry;
  }
  // the product is |x| 2/pi mod 4 in units of 2^-s
  const int s = 32 * (k0 + 7) - e;
  q = int(product_bits(p, s) & 3u);
  uint f[5];
  [[dont_unroll]] for (int j = 0; j < 5; ++j) f[j] = product_bits(p, s - 32 * (j + 1));
  bool neg = false;
  if ((f[0] & 0x80000000u) != 0u) {  // fraction >= 1/2: the next quadrant, fraction - 1
    q = (q + 1) & 3;
    neg = true;
    uint borrow = 0u;
    [[dont_unroll]] for (int j = 4; j >= 0; --j) {
      uint b1, b2;
      const uint d = usubBorrow(0u, f[j], b1);
      f[j] = usubBorrow(d, borrow, b2);
      borrow = b1 | b2;
    }
  }
  // the fraction (below 2^-61 only for no double) from its first nonzero word as hi + lo
  int j = 0;
  if (f[0] == 0u) j = f[1] == 0u ? 2 : 1;
  const double t0 = double(f[j]) * pow2_f64(-32 * (j + 1));
  const double t1 = double(f[j + 1]) * pow2_f64(-32 * (j + 2));
  const double t2 = double(f[j + 2]) * pow2_f64(-32 * (j + 3));
  precise dvec2 frac = dd_fast_two_sum(t0, t1);
  frac = dd_fast_two_sum(frac.x, frac.y + t2);
  const dvec2 r = dd_mul(frac, PIO2_DD);
  return neg ? -r : r;
}

// Taylor coefficients: sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2) (to r^23, r^22:
// below 2^-70 relative for |r| <= pi/4).
const double SIN_C[11] = double[](-0.16666666666666666LF, 0.008333333333333333LF,
    -0.0001984126984126984LF, 2.7557319223985893e-06LF, -2.505210838544172e-08LF,
    1.6059043836821613e-10LF, -7.647163731819816e-13LF, 2.8114572543455206e-15LF,
    -8.22063524662433e-18LF, 1.9572941063391263e-20LF, -3.868170170630684e-23LF);
const double COS_C[10] = double[](0.041666666666666664LF, -0.001388888888888889LF,
    2.48015873015873e-05LF, -2.755731922398589e-07LF, 2.08767569878681e-09LF,
    -1.1470745597729725e-11LF, 4.779477332387385e-14LF, -1.5619206968586225e-16LF,
    4.110317623312165e-19LF, -8.896791392450574e-22LF);

// sin(hi + lo) ~ sin hi + lo cos hi: the leading hi exact, the rest a small correction.
double sin_kernel_f64(dvec2 r) {
  const double z = r.x * r.x;
  double s = SIN_C[10];
  [[dont_unroll]] for (int n = 9; n >= 0; --n) s = s * z + SIN_C[n];
  precise double t = r.x * z * s + r.y * (1.0LF - 0.5LF * z);
  precise double v = r.x + t;
  return v;
}
// cos(hi + lo) ~ cos hi - lo hi, with 1 - hi^2/2 in double-double.
double cos_kernel_f64(dvec2 r) {
  const dvec2 p = dd_two_prod(r.x, r.x);
  double c = COS_C[9];
  [[dont_unroll]] for (int n = 8; n >= 0; --n) c = c * p.x + COS_C[n];
  precise double hz = 0.5LF * p.x;
  precise double w = 1.0LF - hz;
  precise double werr = (1.0LF - w) - hz;
  precise double v = w + (((werr - 0.5LF * p.y) + p.x * p.x * c) - r.y * r.x);
  return v;
}

// sin (want_cos false) or cos of x as its bits.
uvec2 sincos_full_f64(uvec2 x, bool want_cos) {
  const uint ahi = x.y & 0x7fffffffu;
  if (ahi >= 0x7ff00000u) return unpackDouble2x32(nan_f64());  // inf (NaN: the caller's)
  const bool neg = ahi != x.y;
  if (!want_cos && (ahi | x.x) == 0u) return x;  // sin(-0) = -0
  const double ax = packDouble2x32(uvec2(x.x, ahi));
  int q = 0;
  dvec2 r = dvec2(ax, 0.0LF);
  if (ax > 0.78539816339744828LF) r = reduce_pio2_f64(x, q);
  if (want_cos) q += 1;  // cos x = sin(x + pi/2); cos is even
  const double v = (q & 1) == 0 ? sin_kernel_f64(r) : cos_kernel_f64(r);
  const bool flip = ((q & 2) != 0) != (neg && !want_cos);
  return unpackDouble2x32(flip ? -v : v);
}

// ---- e^(hi + lo) and log ----
const double EXP_C[15] = double[](0.5LF, 0.16666666666666666LF, 0.041666666666666664LF,
    0.008333333333333333LF, 0.001388888888888889LF, 0.0001984126984126984LF,
    2.48015873015873e-05LF, 2.7557319223985893e-06LF, 2.755731922398589e-07LF,
    2.505210838544172e-08LF, 2.08767569878681e-09LF, 1.6059043836821613e-10LF,
    1.1470745597729725e-11LF, 7.647163731819816e-13LF, 4.779477332387385e-14LF);

// e^(hi + lo) = result 2^k, the result a double-double in [0.7, 1.5]; hi in [-746, 710].
dvec2 exp_dd_parts(dvec2 x, out int k) {
  const double kd = roundEven(x.x * 1.44269504088896340736LF);
  k = int(kd);
  precise double r1 = x.x - kd * LN2_HI;  // exact (Sterbenz; kd LN2_HI has at most 43 bits)
  precise double r2 = x.y - kd * LN2_LO;
  const dvec2 r = dd_two_sum(r1, r2);
  double c = EXP_C[14];
  [[dont_unroll]] for (int n = 13; n >= 0; --n) c = c * r.x + EXP_C[n];
  // e^(R + Rl) - 1 - R ~ Rl (1 + R) + R^2 (1/2 + R/6 + ...)
  precise double t = r.y * (1.0LF + r.x) + r.x * r.x * c;
  const dvec2 u = dd_two_sum(1.0LF, r.x);
  return dd_fast_two_sum(u.x, u.y + t);
}

double exp_dd_f64(dvec2 x) {
  if (is_nan_f64(x.x)) return x.x;
  if (x.x > 710.0LF) return inf_f64();
  if (x.x < -746.0LF) return 0.0LF;
  int k;
  const dvec2 v = exp_dd_parts(x, k);
  return scale_f64(v.x + v.y, k);
}

const dvec2 THIRD_DD = dvec2(0.3333333333333333LF, 1.850371707708594e-17LF);
const double LOG_C[14] = double[](0.2LF, 0.14285714285714285LF, 0.1111111111111111LF,
    0.09090909090909091LF, 0.07692307692307693LF, 0.06666666666666667LF,
    0.058823529411764705LF, 0.05263157894736842LF, 0.047619047619047616LF,
    0.043478260869565216LF, 0.04LF, 0.037037037037037035LF, 0.034482758620689655LF,
    0.03225806451612903LF);

// log x as a double-double (relative error below 2^-63) for a finite x > 0: x = m 2^e with m
// in [sqrt(1/2), sqrt(2)), log m = 2 s (1 + s^2/3 + s^4/5 + ...) with s = (m-1)/(m+1).
dvec2 log_dd_f64(double x) {
  uvec2 w = unpackDouble2x32(x);
  int e = -1023;
  if ((w.y & 0x7ff00000u) == 0u) {  // subnormal: its integer significand times 2^-1074, read
    // from the bits (exact, and right on a device that flushes subnormal arithmetic)
    w = unpackDouble2x32(double(w.y & 0x000fffffu) * 4294967296.0LF + double(w.x));
    e -= 1074;
  }
  e += int(w.y >> 20);
  double m = packDouble2x32(uvec2(w.x, (w.y & 0x000fffffu) | 0x3ff00000u));
  if (m > 1.41421356237309504880LF) {
    m *= 0.5LF;
    e += 1;
  }
  precise double f = m - 1.0LF;  // exact
  precise double d = 2.0LF + f;
  precise double dl = f - (d - 2.0LF);  // d + dl = 2 + f exactly
  precise double sh = f / d;
  const dvec2 p = dd_two_prod(sh, d);
  precise double sl = (((f - p.x) - p.y) - sh * dl) / d;
  precise dvec2 z = dd_two_prod(sh, sh);
  z.y += 2.0LF * sh * sl;
  double c = LOG_C[13];
  [[dont_unroll]] for (int n = 12; n >= 0; --n) c = c * z.x + LOG_C[n];
  const dvec2 poly = dd_add(THIRD_DD, dvec2(z.x * c, 0.0LF));
  const dvec2 series = dd_add(dvec2(1.0LF, 0.0LF), dd_mul(z, poly));
  const dvec2 lm = 2.0LF * dd_mul(dvec2(sh, sl), series);
  const double de = double(e);
  const dvec2 le = dd_fast_two_sum(de * LN2_HI, de * LN2_LO);  // de LN2_HI exact
  return dd_add(le, lm);
}

// ---- pow ----
bool odd_integer_f64(double v) {
  return floor(v) == v && abs(v) < 9007199254740992.0LF && mod(v, 2.0LF) == 1.0LF;
}

// pow as C99 Annex F: pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN, pow(-1, +-inf) = 1;
// else NaN in, NaN out; a negative x needs an integer y (the sign from an odd one); zeros and
// infinities by the sign and parity of y. Otherwise e^(y log|x|) with y log|x| in
// double-double (its absolute error stays far below 2^-53, so the result is within 0.6 ulp).
uvec2 pow_full_f64(uvec2 x, uvec2 y) {
  const uvec2 one = uvec2(0u, 0x3ff00000u), pinf = uvec2(0u, 0x7ff00000u);
  if (is_zero_word_pair(y) || x == one) return one;
  if (is_nan_word_pair(x) || is_nan_word_pair(y)) return unpackDouble2x32(nan_f64());
  const double a = abs(packDouble2x32(x)), b = packDouble2x32(y);
  const bool xneg = (x.y & 0x80000000u) != 0u;
  const bool yinf = (y.y & 0x7fffffffu) == 0x7ff00000u && y.x == 0u;
  if (yinf) {
    if (a == 1.0LF) return one;  // (-1)^inf
    return (a > 1.0LF) == (b > 0.0LF) ? pinf : uvec2(0u);
  }
  const uint sign = xneg && odd_integer_f64(b) ? 0x80000000u : 0u;
  if (is_zero_word_pair(x)) return b < 0.0LF ? uvec2(0u, sign | 0x7ff00000u) : uvec2(0u, sign);
  if ((x.y & 0x7fffffffu) == 0x7ff00000u) {
    return b < 0.0LF ? uvec2(0u, sign) : uvec2(0u, sign | 0x7ff00000u);
  }
  if (xneg && floor(b) != b) return unpackDouble2x32(nan_f64());
  uvec2 r;
  if (a == 1.0LF) {  // (-1)^y, y an integer
    r = one;
  } else if (abs(b) > 8.4e270LF) {  // beyond 2^900: |y log|x|| > 745 for every |x| != 1
    r = (a > 1.0LF) == (b > 0.0LF) ? pinf : uvec2(0u);
  } else {
    const dvec2 l = log_dd_f64(a);
    const dvec2 p = dd_two_prod(b, l.x);
    const dvec2 t = dd_fast_two_sum(p.x, p.y + b * l.y);
    r = unpackDouble2x32(exp_dd_f64(t));
  }
  return uvec2(r.x, r.y | sign);
}

// ---- erf, erfc, gelu ----
const dvec2 TWO_OVER_SQRTPI_DD = dvec2(1.1283791670955126LF, 1.533545961316588e-17LF);
const dvec2 INV_SQRTPI_DD = dvec2(0.5641895835477563LF, 7.66772980658294e-18LF);

// erf x for |x| < 2 as a double-double: 2/sqrt(pi) sum of (-1)^n x^(2n+1) / (n! (2n+1)), summed
// in double-double (the terms reach e^4 times the sum at most; 2^-100 relative remains).
dvec2 erf_series_dd(double x) {
  const dvec2 z = dd_two_prod(x, x);
  dvec2 term = dvec2(x, 0.0LF), sum = term;
  [[dont_unroll]] for (int n = 1; n < 100; ++n) {
    term = dd_div_d(dd_mul(term, z), -double(n));
    const dvec2 c = dd_div_d(term, double(2 * n + 1));
    sum = dd_add(sum, c);
    if (abs(c.x) < 1e-34LF * abs(sum.x)) break;
  }
  return dd_mul(sum, TWO_OVER_SQRTPI_DD);
}

// erfc x for x >= 2 as result 2^k: e^(-x^2) / (sqrt(pi) K) with K the continued fraction
// x + (1/2)/(x + 1/(x + (3/2)/(x + ...))) (60 levels: converged to double precision at x = 2),
// x^2 in double-double.
dvec2 erfc_fraction_dd(double x, out int k) {
  double kf = x;
  [[dont_unroll]] for (int n = 60; n >= 1; --n) kf = x + (double(n) * 0.5LF) / kf;
  const dvec2 z = dd_two_prod(x, x);
  const dvec2 e = exp_dd_parts(-z, k);
  return dd_div_d(dd_mul(e, INV_SQRTPI_DD), kf);
}

// erf of a non-NaN double.
double erf_full_f64(double x) {
  const double ax = abs(x);
  if (ax == 0.0LF) return x;
  if (ax < 8.6736173798840355e-19LF) {  // 2^-60: x 2/sqrt(pi), x scaled up to stay normal
    precise double big = x * 18014398509481984.0LF;
    precise double v = big + big * 0.12837916709551257390LF;
    return v * pow2_f64(-54);
  }
  if (ax < 2.0LF) {
    const dvec2 v = erf_series_dd(x);
    return v.x + v.y;
  }
  if (ax > 6.0LF) return sign(x);  // erfc(6) < 2^-55: 1 after rounding; infinities too
  int k;
  const dvec2 c = erfc_fraction_dd(ax, k);
  const dvec2 v = dd_add(dvec2(1.0LF, 0.0LF), -c * pow2_f64(k));
  return x < 0.0LF ? -(v.x + v.y) : v.x + v.y;
}

// erfc of a non-NaN double (-inf gives 2, +inf 0).
double erfc_full_f64(double x) {
  if (x >= 2.0LF) {
    if (x > 27.3LF) return 0.0LF;  // erfc(27.3) < 2^-1075
    int k;
    const dvec2 c = erfc_fraction_dd(x, k);
    return scale_f64(c.x + c.y, k);
  }
  if (x <= -2.0LF) {
    if (x < -6.0LF) return 2.0LF;
    int k;
    const dvec2 c = erfc_fraction_dd(-x, k);
    const dvec2 v = dd_add(dvec2(2.0LF, 0.0LF), -c * pow2_f64(k));
    return v.x + v.y;
  }
  const dvec2 v = dd_add(dvec2(1.0LF, 0.0LF), -erf_series_dd(x));
  return v.x + v.y;
}

// gelu as the CPU computes it (ops-nn.md): x/2 erfc(-x/sqrt 2), the product rounded after
// erfc, so that results agree with libm's wherever erfc does; -inf gives NaN (-inf * 0).
uvec2 gelu_full_f64(uvec2 x) {
  if (is_zero_word_pair(x)) return x;
  const bool inf = (x.y & 0x7fffffffu) == 0x7ff00000u && x.x == 0u;
  if (inf) return (x.y & 0x80000000u) != 0u ? unpackDouble2x32(nan_f64()) : x;
  const double v = packDouble2x32(x);
  precise double t = -v * 0.70710678118654752440LF;
  precise double halved = v * 0.5LF;
  precise double r = halved * erfc_full_f64(t);
  return unpackDouble2x32(r);
}

// gelu, tanh form, as the CPU computes it: x / (1 + e^(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3)
// with the same roundings in the same order.
uvec2 gelu_tanh_full_f64(uvec2 x) {
  const double v = packDouble2x32(x);
  precise double cube = 0.044715LF * v * v * v;
  precise double u = 0.7978845608028654LF * (v + cube);
  precise double arg = -2.0LF * u;
  const double e =
      is_inf_f64(arg) ? (arg > 0.0LF ? inf_f64() : 0.0LF) : exp_dd_f64(dvec2(arg, 0.0LF));
  precise double den = 1.0LF + e;
  if (is_inf_f64(v)) {  // +inf / 1 = +inf; -inf / inf = NaN
    return (x.y & 0x80000000u) != 0u ? unpackDouble2x32(nan_f64()) : x;
  }
  return unpackDouble2x32(div_f64(v, den));
}

#endif
