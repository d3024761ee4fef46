// The elementwise math of ops-nn.md for f32 (and through it f16/bf16), computed in f64 so that
// one rounding to f32 lands within 1 ulp of the exact result: GLSL's own exp, log, sin, ... are
// far less accurate (Vulkan allows 3 ulp and more, and absolute errors for sin and cos) and have
// no f64 overloads, so every function here is written out with plain f64 arithmetic, which every
// driver we know of computes as IEEE (Vulkan itself only promises f32-like precision for it).
// Inputs are finite f32 values (the callers handle NaN and inf); results are doubles.
#ifndef OPENINFER_MATH_F64_GLSL
#define OPENINFER_MATH_F64_GLSL

const double LN2_HI = 6.93147180369123816490e-01LF;  // low bits zero: k * LN2_HI is exact
const double LN2_LO = 1.90821492927058770002e-10LF;
const double PIO2 = 1.57079632679489661923LF;

double pow2_f64(int k) { return packDouble2x32(uvec2(0u, uint(k + 1023) << 20)); }  // |k| < 1023

// The f32 with these bits as a double, exactly (a subnormal too, even where f32 flushes).
double f32_to_f64(uint bits) {
  if ((bits & 0x7f800000u) != 0u) return double(uintBitsToFloat(bits));
  const double v = double(bits & 0x7fffffu) * 1.40129846432481707092e-45LF;  // 2^-149
  return (bits & 0x80000000u) != 0u ? -v : v;
}

double inf_f64() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }

// e^x: x = k ln2 + r with |r| <= ln2/2, Taylor to r^13 (relative error below 1e-17).
double exp_f64(double x) {
  if (x > 709.0LF) return inf_f64();
  if (x < -745.5LF) return 0.0LF;
  const double k = roundEven(x * 1.44269504088896340736LF);
  precise double r = x - k * LN2_HI;
  r = r - k * LN2_LO;
  double s = 1.0LF;  // 1 + r (1 + r/2 (1 + r/3 (... (1 + r/13))))
  for (int n = 13; n >= 1; --n) s = 1.0LF + s * r / double(n);
  const int ki = int(k), k1 = ki / 2;
  return s * pow2_f64(k1) * pow2_f64(ki - k1);
}

// e^x - 1 without cancellation near 0.
double expm1_f64(double x) {
  if (abs(x) >= 0.7LF) return exp_f64(x) - 1.0LF;
  double s = 1.0LF;  // sum of x^n / n! for n = 1..19, from the innermost term out
  for (int n = 19; n >= 2; --n) s = 1.0LF + s * x / double(n);
  return s * x;
}

// log(x) for x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh((m-1)/(m+1)).
double log_f64(double x) {
  uvec2 w = unpackDouble2x32(x);
  int e = int(w.y >> 20) - 1023;
  double m = packDouble2x32(uvec2(w.x, (w.y & 0x000fffffu) | 0x3ff00000u));
  if (m > 1.41421356237309504880LF) {
    m *= 0.5LF;
    e += 1;
  }
  const double f = (m - 1.0LF) / (m + 1.0LF), s = f * f;
  double t = 1.0LF / 25.0LF;
  for (int n = 11; n >= 0; --n) t = t * s + 1.0LF / double(2 * n + 1);
  return double(e) * LN2_HI + (double(e) * LN2_LO + 2.0LF * f * t);
}

// 2/pi in 24-bit pieces: 2/pi = sum of TWO_OVER_PI[j] 2^(-24 (j + 1)).
const uint TWO_OVER_PI[14] = uint[](0xA2F983u, 0x6E4E44u, 0x1529FCu, 0x2757D1u, 0xF534DDu,
                                    0xC0DB62u, 0x95993Cu, 0x439041u, 0xFE5163u, 0xABDEBBu,
                                    0xC561B7u, 0x246E3Au, 0x424DD2u, 0xE00649u);

// |x| * 2/pi for a finite nonzero f32 |x| = m 2^s, exactly enough for any f32 (Payne-Hanek):
// the pieces whose product with m is a multiple of 4 are left out, the next six products
// (48-bit, exact) are reduced mod 4 and summed as a double-double. Returns the nearest integer
// quadrant in q and |x| - q pi/2 as the result.
double reduce_pio2(uint abits, out int q) {
  const uint field = abits >> 23;
  const double m = double(field == 0u ? (abits & 0x7fffffu) : ((abits & 0x7fffffu) | 0x800000u));
  const int s = (field == 0u ? 1 : int(field)) - 150;
  const int j0 = max(0, (s - 2) / 24);  // s - 24 (j + 1) >= 2 - 24: earlier pieces vanish mod 4
  precise double hi = 0.0LF, lo = 0.0LF;
  for (int j = j0; j < j0 + 6; ++j) {
    const int scale = s - 24 * (j + 1);
    precise double t = m * double(TWO_OVER_PI[j]);
    // t 2^scale mod 4, exact: t is an integer below 2^48 and the scale a power of two.
    if (scale >= -50) {
      const double unit = pow2_f64(2 - scale);  // 4 / 2^scale, an integer when scale < 2
      t = t - unit * floor(t / unit);
      t = t * pow2_f64(scale);
    } else {
      t = t * pow2_f64(scale);
    }
    // two-sum: hi + lo = old hi + t exactly
    precise double sum = hi + t;
    precise double bv = sum - hi;
    precise double err = (hi - (sum - bv)) + (t - bv);
    hi = sum;
    lo = lo + err;
  }
  const double n = roundEven(hi + lo);
  q = int(n) & 3;
  precise double frac = hi - n;
  frac = frac + lo;
  return frac * PIO2;
}

// sin and cos of r in [-pi/4, pi/4]: Taylor to r^17 / r^18 in Horner form.
double sin_poly(double r) {
  const double s = r * r;
  double t = 1.0LF;
  for (int n = 8; n >= 1; --n) t = 1.0LF - s / double((2 * n) * (2 * n + 1)) * t;
  return r * t;
}
double cos_poly(double r) {
  const double s = r * r;
  double t = 1.0LF;
  for (int n = 9; n >= 1; --n) t = 1.0LF - s / double((2 * n - 1) * (2 * n)) * t;
  return t;
}

// sin (want_cos false) or cos of a finite f32 given by its bits.
double sincos_f64(uint bits, bool want_cos) {
  const uint abits = bits & 0x7fffffffu;
  const bool neg = bits != abits;
  if (abits == 0u) return want_cos ? 1.0LF : double(uintBitsToFloat(bits));
  int q;
  const double r = reduce_pio2(abits, q);
  if (want_cos) q += 1;  // cos x = sin(x + pi/2); cos is even
  const double v = (q & 1) == 0 ? sin_poly(r) : cos_poly(r);
  const bool flip = ((q & 2) != 0) != (neg && !want_cos);
  return flip ? -v : v;
}

// tanh(x) = expm1(2x) / (expm1(2x) + 2), odd.
double tanh_f64(double x) {
  const double a = abs(x);
  if (a >= 20.0LF) return sign(x);
  const double e = expm1_f64(2.0LF * a);
  const double t = e / (e + 2.0LF);
  return x < 0.0LF ? -t : t;
}

// erf by its Taylor series (|x| < 2: the terms cancel by at most e^4), erfc by the continued
// fraction (x >= 2: 50 levels converge to double precision).
double erf_series(double x) {
  const double x2 = x * x;
  double term = x, sum = 0.0LF;
  for (int n = 0; n < 60; ++n) {
    const double c = term / double(2 * n + 1);
    sum += c;
    if (abs(c) < 1e-17LF * abs(sum)) break;
    term *= -x2 / double(n + 1);
  }
  return 1.12837916709551257390LF * sum;  // 2 / sqrt(pi)
}
double erfc_fraction(double x) {  // x >= 2
  double k = x;
  for (int n = 50; n >= 1; --n) k = x + (double(n) * 0.5LF) / k;
  return exp_f64(-x * x) / (1.77245385090551602730LF * k);  // sqrt(pi)
}
double erfc_f64(double x) {
  if (x >= 2.0LF) return x > 27.0LF ? 0.0LF : erfc_fraction(x);
  if (x <= -2.0LF) return x < -27.0LF ? 2.0LF : 2.0LF - erfc_fraction(-x);
  return 1.0LF - erf_series(x);
}
double erf_f64(double x) {
  if (abs(x) < 2.0LF) return erf_series(x);
  const double c = abs(x) > 27.0LF ? 0.0LF : erfc_fraction(abs(x));
  return x < 0.0LF ? c - 1.0LF : 1.0LF - c;
}

// sqrt rounded correctly to f32 whatever the driver's f64 sqrt does: the candidate is moved to
// the neighbour whose rounding interval holds x, decided with exact squares (25-bit numbers).
uint sqrt_f32_bits(uint xbits) {  // x > 0, finite
  const double dx = f32_to_f64(xbits);
  uint b = floatBitsToUint(float(sqrt(dx)));
  for (int i = 0; i < 2; ++i) {
    const double s = f32_to_f64(b), up = f32_to_f64(b + 1u), down = f32_to_f64(b - 1u);
    const double hi = 0.5LF * (s + up), lo = 0.5LF * (s + down);  // exact midpoints
    if (hi * hi < dx || (hi * hi == dx && (b & 1u) != 0u)) {
      b += 1u;
    } else if (lo * lo > dx || (lo * lo == dx && (b & 1u) != 0u)) {
      b -= 1u;
    }
  }
  return b;
}

#endif
