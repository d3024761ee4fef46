// The elementwise ops beyond relu, for every dtype of 1 to 32 bits (f32 i32 u32 f16 bf16 i16
// u16 i8 u8 bool f8 and the packed i4 i2 i1 u4 u2 u1, LSB-first; bitset is u8), and add, sub,
// mul, div and fill for those eltwise.comp leaves out: the op, the input dtype and the output
// dtype are specialization constants. Values travel as raw bits; floats are handled as f32 bits,
// compared and classified with integer code (exact on devices that flush subnormals), and
// narrowed once (f8 is OCP E5M2: the high byte of an f16). One invocation writes one output
// word; a word the tensor shares with a neighbour at either end is updated with atomics, leaving
// the neighbour's bits alone. Built three times: with -DMATH_F64 it also holds the
// transcendental ops computed in f64 (math_f64.glsl), which need shaderFloat64; with -DMATH_F32
// the same ops computed in f32 (math_f32.glsl), for devices without it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "div_f32.glsl"
#include "half_formats.glsl"
#if defined(MATH_F64)
#include "math_f64.glsl"
#elif defined(MATH_F32)
#include "math_f32.glsl"
#endif

layout(local_size_x = 256) in;

// Values: kernels/ew_ops.hpp.
layout(constant_id = 0) const uint OP = 0;
layout(constant_id = 1) const uint DT_IN = 0;
layout(constant_id = 2) const uint DT_OUT = 0;
layout(constant_id = 3) const uint DT_C = 0;  // filter's third input (a's dtype or bool)

const uint DT_F32 = 0, DT_I32 = 1, DT_U32 = 2, DT_F16 = 3, DT_BF16 = 4, DT_I16 = 5, DT_U16 = 6,
           DT_I8 = 7, DT_U8 = 8, DT_BOOL = 9, DT_F8 = 13, DT_I4 = 14, DT_I2 = 15, DT_I1 = 16,
           DT_U4 = 17, DT_U2 = 18, DT_U1 = 19;
const uint OP_NEG = 0, OP_ABS = 1, OP_SIGN = 2, OP_RECIP = 3, OP_FLOOR = 4, OP_CEIL = 5,
           OP_ROUND = 6, OP_TRUNC = 7, OP_NOT = 8, OP_POPCOUNT = 9, OP_IS_NAN = 10,
           OP_IS_INF = 11, OP_IS_NEG = 12, OP_SHL = 13, OP_SHR = 14, OP_CLAMP = 15,
           OP_CAST = 16, OP_IOTA = 17, OP_FILTER = 18;
const uint OP_MIN = 20, OP_MAX = 21, OP_FLOOR_DIV = 22, OP_REM = 23, OP_AND = 24, OP_OR = 25,
           OP_XOR = 26, OP_EQ = 27, OP_NE = 28, OP_LT = 29, OP_LE = 30, OP_GT = 31, OP_GE = 32,
           OP_ADD = 33, OP_SUB = 34, OP_MUL = 35, OP_DIV = 36, OP_FILL = 37, OP_RELU = 38;
const uint OP_EXP = 40, OP_LOG = 41, OP_SQRT = 42, OP_SIN = 43, OP_COS = 44, OP_TANH = 45,
           OP_ERF = 46, OP_RSQRT = 47, OP_SIGMOID = 48, OP_SILU = 49, OP_GELU = 50,
           OP_GELU_TANH = 51, OP_POW = 52, OP_FMA = 53;
const uint HAS_MASK = 1, HAS_LO = 2, HAS_HI = 4;

// p: count, rank, a/b/c element offsets, y element offset, flags, -, settings s0..s3 as two
// words each (8..15), then (dim, a stride, b stride, c stride) per dim from 16 on.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) readonly buffer C { uint c[]; };
layout(std430, binding = 4) buffer Y { uint y[]; };

const uint NUM_INPUTS = OP == OP_IOTA || OP == OP_FILL ? 0u
                        : (OP >= OP_MIN && OP <= OP_DIV) || OP == OP_POW ? 2u
                        : OP == OP_FMA || OP == OP_FILTER ? 3u : 1u;

// Bits a stored element takes (a constant expression, so that it works on spec constants).
#define BITS_OF(dt)                                          \
  ((dt) <= DT_U32                        ? 32u               \
   : (dt) <= DT_U16                      ? 16u               \
   : ((dt) <= DT_BOOL || (dt) == DT_F8)  ? 8u                \
   : ((dt) == DT_I4 || (dt) == DT_U4)    ? 4u                \
   : ((dt) == DT_I2 || (dt) == DT_U2)    ? 2u                \
                                         : 1u)
uint dt_bits(uint dt) { return BITS_OF(dt); }
uint dt_width(uint dt) { return dt == DT_BOOL ? 1u : dt_bits(dt); }
bool dt_float(uint dt) { return dt == DT_F32 || dt == DT_F16 || dt == DT_BF16 || dt == DT_F8; }
bool dt_signed(uint dt) {
  return dt == DT_I32 || dt == DT_I16 || dt == DT_I8 || dt == DT_I4 || dt == DT_I2 || dt == DT_I1;
}
uint dt_mask(uint dt) { return dt_bits(dt) == 32u ? 0xffffffffu : (1u << dt_bits(dt)) - 1u; }

const uint IN_BITS = BITS_OF(DT_IN);
const uint OUT_BITS = BITS_OF(DT_OUT);
const uint C_BITS = OP != OP_FILTER ? IN_BITS : BITS_OF(DT_C);

bool flag(uint f) { return (p[6] & f) != 0u; }
uint setting(uint k) { return p[8u + 2u * k]; }

// Element k of a buffer of `bits`-sized elements, zero-extended.
#define LOAD_BITS(buf, k, bits) \
  ((bits) == 32u ? buf[k]       \
                 : (buf[(k) / (32u / (bits))] >> (((k) % (32u / (bits))) * (bits))) & ((1u << (bits)) - 1u))
#define LOAD(buf, k) LOAD_BITS(buf, k, IN_BITS)

uvec3 locate(uint i) {
  uvec3 abc = uvec3(0u);
  uint rest = i;
  for (int d = int(p[1]) - 1; d >= 0; --d) {
    uint base = 16u + 4u * uint(d);
    uint co = rest % p[base];
    rest /= p[base];
    abc += co * uvec3(p[base + 1u], p[base + 2u], p[base + 3u]);
  }
  return abc;
}

int sext(uint v, uint dt) {
  uint w = dt_width(dt);
  return w >= 32u ? int(v) : (int(v << (32u - w)) >> (32u - w));
}

// ---- floats, as f32 bits ----
bool is_nan_bits(uint x) { return (x & 0x7fffffffu) > 0x7f800000u; }
uint quiet(uint x) { return x | 0x400000u; }
// Total order keys: -0 below +0 (min/max), or equal (comparisons).
int order_key(uint x) { return (x & 0x80000000u) != 0u ? -int(x & 0x7fffffffu) - 1 : int(x); }
int compare_key(uint x) { return (x & 0x80000000u) != 0u ? -int(x & 0x7fffffffu) : int(x); }

uint f32_bits_of(uint raw, uint dt) {
  if (dt == DT_F32) return raw;
  if (dt == DT_F8) return floatBitsToUint(widen_half(raw << 8, false));  // E5M2: an f16's top byte
  return floatBitsToUint(widen_half(raw, dt == DT_BF16));
}
uint encode_float(uint bits) {  // f32 bits to the output dtype, rounding once
  if (DT_OUT == DT_F32) return bits;
  if (DT_OUT == DT_F8) return narrow_f8_bits(bits);
  return narrow_half_bits(bits, DT_OUT == DT_BF16);
}

// floor/ceil/trunc/round on bits: |x| < 1 (subnormals too) decided here, exactly. One exit:
// lavapipe (LLVM 15) mixed up the early returns of an earlier form of this function.
uint round_bits(uint x, uint mode) {  // mode: 0 trunc, 1 floor, 2 ceil, 3 nearest even
  const uint ax = x & 0x7fffffffu, s = x & 0x80000000u;
  uint r;
  if (ax >= 0x4b000000u) {  // integral, inf or NaN
    r = ax > 0x7f800000u ? quiet(x) : x;
  } else if (ax >= 0x3f800000u) {
    const float f = uintBitsToFloat(x);
    const float v = mode == 1u ? floor(f) : mode == 2u ? ceil(f) : mode == 3u ? roundEven(f) : trunc(f);
    r = floatBitsToUint(v) | s;  // a zero result keeps the sign of x
  } else if (ax == 0u) {
    r = x;
  } else {  // 0 < |x| < 1: a signed zero or a signed one
    const bool one = (mode == 1u && s != 0u) || (mode == 2u && s == 0u) ||
                     (mode == 3u && ax > 0x3f000000u);
    r = s | (one ? 0x3f800000u : 0u);
  }
  return r;
}

// ---- integers to floats: round to nearest even at `prec` significant bits first ----
uint int_to_f32_bits(uint mag, bool neg, uint prec) {
  if (mag == 0u) return 0u;
  const int msb = findMSB(mag);
  uint q = mag, shift = 0u;
  if (uint(msb) + 1u > prec) {
    shift = uint(msb) + 1u - prec;
    q = mag >> shift;
    const uint rest = mag & ((1u << shift) - 1u), tie = 1u << (shift - 1u);
    if (rest > tie || (rest == tie && (q & 1u) != 0u)) ++q;
  }
  const float v = float(q) * uintBitsToFloat((127u + shift) << 23);  // exact
  return floatBitsToUint(v) | (neg ? 0x80000000u : 0u);
}
uint prec_of(uint dt) { return dt == DT_F32 ? 24u : dt == DT_F16 ? 11u : dt == DT_F8 ? 3u : 8u; }
uint int_to_float_out(uint mag, bool neg) {
  return encode_float(int_to_f32_bits(mag, neg, prec_of(DT_OUT)));
}

// ---- cast (ops.md) ----
uint int_limit_max(uint dt) {  // largest value's bits
  if (dt == DT_BOOL) return 1u;
  return dt_signed(dt) ? (dt_mask(dt) >> 1) : dt_mask(dt);
}
// An integer given as sign and magnitude into DT_OUT, saturating or wrapping.
uint int_to_int_out(uint mag, bool neg, bool saturate) {
  if (DT_OUT == DT_BOOL) return mag != 0u ? 1u : 0u;
  const uint mask = dt_mask(DT_OUT);
  if (!saturate) return (neg ? 0u - mag : mag) & mask;
  if (neg) {
    if (!dt_signed(DT_OUT)) return 0u;
    const uint lim = (mask >> 1) + 1u;  // |min|
    return (0u - min(mag, lim)) & mask;
  }
  return min(mag, int_limit_max(DT_OUT));
}

uint cast_bits(uint x) {
  const uint mode = setting(0);
  const bool saturate = setting(1) != 0u;
  if (dt_float(DT_IN)) {
    const uint f = f32_bits_of(x, DT_IN);
    if (dt_float(DT_OUT)) return encode_float(f);
    if (DT_OUT == DT_BOOL) return (f & 0x7fffffffu) != 0u ? 1u : 0u;
    if (is_nan_bits(f)) return 0u;
    bool neg = (f & 0x80000000u) != 0u;
    if ((f & 0x7fffffffu) == 0x7f800000u) {
      return saturate ? int_to_int_out(0xffffffffu, neg, true) : 0u;
    }
    const uint r = round_bits(f, mode) & 0x7fffffffu;  // the integral magnitude's bits
    uint mag;
    if (r >= 0x4f800000u) {  // 2^32 and above
      if (saturate) return int_to_int_out(0xffffffffu, neg, true);
      const uint e = (r >> 23) - 150u;  // value = significand << e, e >= 9
      mag = e >= 32u ? 0u : ((r & 0x7fffffu) | 0x800000u) << e;
    } else {
      mag = uint(uintBitsToFloat(r));
    }
    if (mag == 0u) neg = false;
    return int_to_int_out(mag, neg, saturate);
  }
  // integer or bool source
  const bool neg = dt_signed(DT_IN) && sext(x, DT_IN) < 0;
  const uint mag = neg ? uint(-sext(x, DT_IN)) : x;
  if (dt_float(DT_OUT)) return int_to_float_out(mag, neg);
  return int_to_int_out(mag, neg, saturate);
}

// ---- float ops on f32 bits; the result already in DT_OUT ----
#if defined(MATH_F64)
uint from_f64(double v) { return floatBitsToUint(float(v)); }
uint nan_bits() { return 0x7fc00000u; }

uint math_unary(uint x) {
  const uint ax = x & 0x7fffffffu;
  const bool neg = x != ax;
  if (ax > 0x7f800000u) return quiet(x);
  const bool inf = ax == 0x7f800000u;
  const double v = f32_to_f64(x);
  if (OP == OP_EXP) return inf ? (neg ? 0u : x) : from_f64(exp_f64(v));
  if (OP == OP_LOG) {
    if (ax == 0u) return 0xff800000u;
    if (neg) return nan_bits();
    return inf ? x : from_f64(log_f64(v));
  }
  if (OP == OP_SQRT) {
    if (ax == 0u) return x;
    if (neg) return nan_bits();
    return inf ? x : sqrt_f32_bits(x);
  }
  if (OP == OP_RSQRT) {
    if (ax == 0u) return x | 0x7f800000u;
    if (neg) return nan_bits();
    return inf ? 0u : from_f64(1.0LF / sqrt(v));
  }
  if (OP == OP_SIN || OP == OP_COS) return inf ? nan_bits() : from_f64(sincos_f64(x, OP == OP_COS));
  if ((OP == OP_TANH || OP == OP_ERF) && ax == 0u) return x;  // keeps -0
  if (OP == OP_TANH) return inf ? (x & 0x80000000u) | 0x3f800000u : from_f64(tanh_f64(v));
  if (OP == OP_ERF) return inf ? (x & 0x80000000u) | 0x3f800000u : from_f64(erf_f64(v));
  if (OP == OP_SIGMOID) return inf ? (neg ? 0u : 0x3f800000u) : from_f64(1.0LF / (1.0LF + exp_f64(-v)));
  if (inf) return neg ? nan_bits() : x;  // silu, gelu: +inf stays, -inf gives inf/inf or inf*0
  if (OP == OP_SILU) return from_f64(v / (1.0LF + exp_f64(-v)));
  if (OP == OP_GELU) return from_f64(v * 0.5LF * erfc_f64(-v * 0.70710678118654752440LF));
  // gelu, tanh approximation: x / (1 + e^(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3)
  const double u = 0.7978845608028654LF * (v + 0.044715LF * v * v * v);
  return from_f64(v / (1.0LF + exp_f64(-2.0LF * u)));
}

bool odd_integer(double v) { return floor(v) == v && abs(v) < 9007199254740992.0LF && mod(v, 2.0LF) == 1.0LF; }

// pow as C99: pow(x, 0) = 1 and pow(1, y) = 1 even for NaN; otherwise NaN in, NaN out.
uint pow_bits(uint x, uint z) {
  const uint ax = x & 0x7fffffffu, az = z & 0x7fffffffu;
  if (az == 0u || x == 0x3f800000u) return 0x3f800000u;
  if (is_nan_bits(x) || is_nan_bits(z)) return nan_bits();
  const double a = f32_to_f64(x), e = f32_to_f64(z);
  const bool zinf = az == 0x7f800000u, xneg = x != ax;
  if (zinf) {
    if (ax == 0x3f800000u) return 0x3f800000u;  // (-1)^inf
    const bool big = ax > 0x3f800000u, up = z == 0x7f800000u;
    return big == up ? 0x7f800000u : 0u;
  }
  const bool odd = odd_integer(e);
  const uint sign = xneg && odd ? 0x80000000u : 0u;
  if (ax == 0u) return e < 0.0LF ? sign | 0x7f800000u : sign;
  if (ax == 0x7f800000u) return e < 0.0LF ? sign : sign | 0x7f800000u;
  if (xneg && floor(e) != e) return nan_bits();
  return sign | (from_f64(exp_f64(e * log_f64(abs(a)))) & 0x7fffffffu);
}

uint fma_bits(uint x, uint z, uint w) {
  if (is_nan_bits(x) || is_nan_bits(z) || is_nan_bits(w)) return nan_bits();
  // x * z is exact in f64 (48 bits); the sum rounds once in f64, then once more to f32.
  precise double prod = f32_to_f64(x) * f32_to_f64(z);
  precise double sum = prod + f32_to_f64(w);
  return from_f64(sum);
}
#elif defined(MATH_F32)
// The same ops in f32 arithmetic (math_f32.glsl), with the same special cases.
uint math_unary(uint x) {
  if (OP == OP_EXP) return m32_exp(x);
  if (OP == OP_LOG) return m32_log(x);
  if (OP == OP_SQRT) return m32_sqrt(x);
  if (OP == OP_RSQRT) return m32_rsqrt(x);
  if (OP == OP_SIN) return m32_sin(x);
  if (OP == OP_COS) return m32_cos(x);
  if (OP == OP_TANH) return m32_tanh(x);
  if (OP == OP_ERF) return m32_erf(x);
  if (OP == OP_SIGMOID) return m32_sigmoid(x);
  if (OP == OP_SILU) return m32_silu(x);
  if (OP == OP_GELU) return m32_gelu(x);
  return m32_gelu_tanh(x);
}
uint pow_bits(uint x, uint z) { return m32_pow(x, z); }
uint fma_bits(uint x, uint z, uint w) { return m32_fma(x, z, w); }
#endif

uint float_op(uint x, uint z, uint w) {
  const uint ax = x & 0x7fffffffu;
  if (OP == OP_ADD || OP == OP_SUB || OP == OP_MUL) {  // f8: exact f32 inputs, one rounding
    const float fx = uintBitsToFloat(x), fz = uintBitsToFloat(z);
    precise float r = OP == OP_ADD ? fx + fz : OP == OP_SUB ? fx - fz : fx * fz;
    return encode_float(floatBitsToUint(r));
  }
  if (OP == OP_DIV) {
    if ((z & 0x7fffffffu) == 0u && flag(HAS_MASK)) return encode_float(setting(0));
    return encode_float(div_f32_bits(x, z));
  }
  if (OP == OP_RELU) {  // a >= 0 ? a : alpha a (a zero result +0), clamped; NaN compares false
    const float fx = uintBitsToFloat(x);
    precise float r = fx >= 0.0 ? fx : uintBitsToFloat(setting(0)) * fx;
    uint bits = r == 0.0 ? 0u : floatBitsToUint(r);
    if (r < uintBitsToFloat(setting(1))) {
      r = uintBitsToFloat(setting(1));
      bits = setting(1);
    }
    if (r > uintBitsToFloat(setting(2))) bits = setting(2);
    return encode_float(bits);
  }
  if (OP == OP_NEG) return encode_float(x ^ 0x80000000u);
  if (OP == OP_ABS) return encode_float(ax);
  if (OP == OP_SIGN) return is_nan_bits(x) || ax == 0u ? 0u : x != ax ? 0xffu : 1u;
  if (OP == OP_RECIP) {
    if (ax == 0u && flag(HAS_MASK)) return encode_float(setting(0));
    return encode_float(div_f32_bits(0x3f800000u, x));
  }
  if (OP == OP_FLOOR) return encode_float(round_bits(x, 1u));
  if (OP == OP_CEIL) return encode_float(round_bits(x, 2u));
  if (OP == OP_ROUND) return encode_float(round_bits(x, 3u));
  if (OP == OP_TRUNC) return encode_float(round_bits(x, 0u));
  if (OP == OP_IS_NAN) return is_nan_bits(x) ? 1u : 0u;
  if (OP == OP_IS_INF) return ax == 0x7f800000u ? 1u : 0u;
  if (OP == OP_IS_NEG) return x != ax && ax != 0u && !is_nan_bits(x) ? 1u : 0u;
  if (OP == OP_MIN || OP == OP_MAX || OP == OP_CLAMP) {
    if (is_nan_bits(x)) return encode_float(quiet(x));
    if (OP == OP_CLAMP) {
      uint r = x;
      if (order_key(r) < order_key(setting(0))) r = setting(0);
      if (order_key(r) > order_key(setting(1))) r = setting(1);
      return encode_float(r);
    }
    if (is_nan_bits(z)) return encode_float(quiet(z));
    const bool x_less = order_key(x) < order_key(z);
    return encode_float((OP == OP_MIN) == x_less ? x : z);
  }
  if (OP >= OP_EQ && OP <= OP_GE) {
    if (is_nan_bits(x) || is_nan_bits(z)) return OP == OP_NE ? 1u : 0u;
    const int kx = compare_key(x), kz = compare_key(z);
    bool r = OP == OP_EQ ? kx == kz : OP == OP_NE ? kx != kz : OP == OP_LT ? kx < kz
             : OP == OP_LE ? kx <= kz : OP == OP_GT ? kx > kz : kx >= kz;
    return r ? 1u : 0u;
  }
#if defined(MATH_F64) || defined(MATH_F32)
  if (OP == OP_POW) return encode_float(pow_bits(x, z));
  if (OP == OP_FMA) return encode_float(fma_bits(x, z, w));
  if (OP >= OP_EXP) return encode_float(math_unary(x));
#endif
  return 0u;
}

// ---- integer and bool ops on raw bits; signedness from DT_IN ----
uint udiv_signed(int x, int z) {  // truncating, on magnitudes (GLSL leaves negative % undefined)
  const uint q = uint(abs(x)) / uint(abs(z));
  return (x < 0) != (z < 0) ? 0u - q : q;
}

uint int_op(uint x, uint z) {
  const uint mask = dt_mask(DT_IN);
  const bool sgn = dt_signed(DT_IN);
  const int sx = sext(x, DT_IN), sz = sext(z, DT_IN);
  if (OP == OP_NEG) return (0u - x) & mask;
  if (OP == OP_ABS) return (sgn && sx < 0 ? 0u - x : x) & mask;
  if (OP == OP_SIGN) return sgn ? (sx < 0 ? 0xffu : sx > 0 ? 1u : 0u) : (x != 0u ? 1u : 0u);
  if (OP == OP_NOT) return DT_IN == DT_BOOL ? x ^ 1u : ~x & mask;
  if (OP == OP_POPCOUNT) return uint(bitCount(x & mask));
  if (OP == OP_IS_NEG) return sgn && sx < 0 ? 1u : 0u;
  if (OP == OP_SHL) return (x << setting(0)) & mask;
  if (OP == OP_SHR) return sgn ? uint(sx >> int(setting(0))) & mask : x >> setting(0);
  if (OP == OP_AND) return x & z;
  if (OP == OP_OR) return x | z;
  if (OP == OP_XOR) return x ^ z;
  if (DT_IN == DT_BOOL && (OP == OP_ADD || OP == OP_MUL)) {  // logical or / and
    return OP == OP_ADD ? (x | z) : (x & z);
  }
  if (OP == OP_ADD) return (x + z) & mask;
  if (OP == OP_SUB) return (x - z) & mask;
  if (OP == OP_MUL) return (x * z) & mask;  // the low bits of the product, signed or not
  if (OP == OP_DIV) {  // truncating; a zero divisor gives the mask or 0; INT_MIN / -1 wraps
    if (z == 0u) return flag(HAS_MASK) ? setting(0) & mask : 0u;
    if (!sgn) return x / z;
    if (sz == -1) return (0u - x) & mask;
    return udiv_signed(sx, sz) & mask;
  }
  if (OP == OP_RELU) {  // a >= 0 ? a : alpha a (wrapping), clamped at the finite bounds
    int r = sx >= 0 ? sx : sext((setting(0) * x) & mask, DT_IN);
    if (flag(HAS_LO)) r = max(r, int(setting(1)));
    if (flag(HAS_HI)) r = min(r, int(setting(2)));
    return uint(r) & mask;
  }
  if (OP == OP_CLAMP) {
    if (sgn) {
      int r = sx;
      if (flag(HAS_LO)) r = max(r, int(setting(0)));
      if (flag(HAS_HI)) r = min(r, int(setting(1)));
      return uint(r) & mask;
    }
    uint r = x;
    if (flag(HAS_LO)) r = max(r, setting(0));
    if (flag(HAS_HI)) r = min(r, setting(1));
    return r;
  }
  const bool lt = sgn ? sx < sz : x < z;
  if (OP == OP_MIN) return lt ? x : z;
  if (OP == OP_MAX) return lt ? z : x;
  if (OP == OP_EQ) return x == z ? 1u : 0u;
  if (OP == OP_NE) return x != z ? 1u : 0u;
  if (OP == OP_LT) return lt ? 1u : 0u;
  if (OP == OP_LE) return lt || x == z ? 1u : 0u;
  if (OP == OP_GT) return !lt && x != z ? 1u : 0u;
  if (OP == OP_GE) return !lt ? 1u : 0u;
  if (z == 0u) return OP == OP_FLOOR_DIV && flag(HAS_MASK) ? setting(0) & mask : 0u;
  if (!sgn) return OP == OP_FLOOR_DIV ? x / z : x % z;
  if (sz == -1) return OP == OP_FLOOR_DIV ? (0u - x) & mask : 0u;  // INT_MIN / -1 wraps
  const uint q = udiv_signed(sx, sz);
  const uint r = uint(sx) - q * uint(sz);
  if (OP == OP_REM) return r & mask;
  return (r != 0u && (sx < 0) != (sz < 0) ? q - 1u : q) & mask;  // floor_div
}

uint compute(uint i) {
  if (OP == OP_FILL) return setting(0) & dt_mask(DT_OUT);  // the value's bits, from the host
  if (OP == OP_IOTA) {  // the index along the axis: s0 = axis size, s1 = inner stride
    const uint idx = (i / setting(1)) % setting(0);
    return dt_float(DT_OUT) ? int_to_float_out(idx, false) : idx & dt_mask(DT_OUT);
  }
  const uvec3 e = locate(i);
  const uint x = LOAD(a, p[2] + e.x);
  const uint z = NUM_INPUTS >= 2u ? LOAD(b, p[3] + e.y) : 0u;
  const uint kc = p[4] + e.z;
  const uint w = NUM_INPUTS < 3u ? 0u : LOAD_BITS(c, kc, C_BITS);
  if (OP == OP_FILTER) {  // c != 0 ? a : b; a float c compares as a number (-0 is 0, NaN is not)
    const uint mag = DT_C == DT_F32                       ? w & 0x7fffffffu
                     : (DT_C == DT_F16 || DT_C == DT_BF16) ? w & 0x7fffu
                     : DT_C == DT_F8                       ? w & 0x7fu
                                                           : w;
    return mag != 0u ? x : z;
  }
  if (OP == OP_CAST) return cast_bits(x);
  if (DT_OUT != DT_IN && (OP == OP_ADD || OP == OP_SUB || OP == OP_MUL || OP == OP_ABS)) {
    // accumulate (acc=): the inputs converted exactly to the wider output, the op at its width
    const bool sgn = dt_signed(DT_IN);
    const uint xo = sgn ? uint(sext(x, DT_IN)) : x, zo = sgn ? uint(sext(z, DT_IN)) : z;
    const uint r = OP == OP_ADD ? xo + zo : OP == OP_SUB ? xo - zo : OP == OP_MUL ? xo * zo
                   : sgn && int(xo) < 0 ? 0u - xo : xo;
    return r & dt_mask(DT_OUT);
  }
  if (dt_float(DT_IN)) {
    return float_op(f32_bits_of(x, DT_IN), f32_bits_of(z, DT_IN), f32_bits_of(w, DT_IN));
  }
  return int_op(x, z) & dt_mask(DT_OUT);
}

void main() {
  const uint per = 32u / OUT_BITS, bits_per = OUT_BITS;
  const uint first = p[5], end = p[5] + p[0];  // output elements [first, end)
  const uint w0 = first / per, words = (end + per - 1u) / per - w0;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint j = gl_GlobalInvocationID.x; j < words; j += stride) {
    const uint w = w0 + j;
    uint bits = 0u, keep = 0u;  // keep: the bits of elements that are not ours
    for (uint k = 0u; k < per; ++k) {
      const uint g = w * per + k, shift = k * bits_per;
      const uint m = per == 1u ? 0xffffffffu : ((1u << bits_per) - 1u) << shift;
      if (g >= first && g < end) {
        bits |= (compute(g - first) << shift) & m;
      } else {
        keep |= m;
      }
    }
    if (keep == 0u) {
      y[w] = bits;
    } else {
      atomicAnd(y[w], keep);
      atomicOr(y[w], bits);
    }
  }
}
