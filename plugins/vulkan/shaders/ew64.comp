// The ew.comp ops where an operand or the result is an 8-byte dtype, built twice because SPIR-V
// capabilities are per module: -DF64 (shaderFloat64) for f64 inputs (with exp, log, sqrt,
// rsqrt, tanh, sigmoid, silu and fma), casts to and from f64 (i64/u64 ones through exact
// word-pair arithmetic) and f64 iota; -DI64 (shaderInt64) for i64/u64 inputs, casts to and from
// them (floats of up to 32 bits), their iota, u64 div, and add/sub/mul/abs accumulating (acc=)
// into i64/u64; the i64 ops are int64_ops.glsl's, over uint64_t, or with -DINT64_EMULATED over
// 32-bit words (no shaderInt64: the _emu variants). -DF64 -DMATH_FULL adds f64 sin, cos, erf, gelu and pow (math_f64_full.glsl) in
// a build of its own: that code doubles the module, and with it lavapipe's compile time for
// every pipeline of the -DF64 build. Elements travel as (low, high) word pairs; results of up to
// 32 bits are packed into words as in ew.comp (atomics on words shared with a neighbour), 8-byte
// results take two words. Floats compare and classify on their bits; rounding ops are IEEE f64
// operations.
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(I64) && !defined(INT64_EMULATED)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#if defined(MATH_FULL)
#extension GL_EXT_control_flow_attributes : require  // [[dont_unroll]]: math_f64_full.glsl
#endif
#include "float_controls.glsl"
#include "half_formats.glsl"
#if defined(F64)
#include "wide_floats.glsl"
#endif
#if defined(MATH_FULL)
#include "math_f64_full.glsl"
#endif
#if defined(I64)
#include "int64_ops.glsl"
#endif

layout(local_size_x = 256) in;

// Values: kernels/ew_ops.hpp (the op), ew_dtype_code / wide_dtype_code (the dtypes).
layout(constant_id = 0) const uint OP = 0;
layout(constant_id = 1) const uint DT_IN = 0;
layout(constant_id = 2) const uint DT_OUT = 0;
layout(constant_id = 3) const uint DT_C = 0;  // filter's third input (a's dtype or bool)

const uint DT_F32 = 0, DT_I32 = 1, DT_U32 = 2, DT_F16 = 3, DT_BF16 = 4, DT_I16 = 5, DT_U16 = 6,
           DT_I8 = 7, DT_U8 = 8, DT_BOOL = 9, DT_F64 = 10, DT_I64 = 11, DT_U64 = 12, DT_F8 = 13,
           DT_I4 = 14, DT_I2 = 15, DT_I1 = 16, DT_U4 = 17, DT_U2 = 18, DT_U1 = 19;
const uint OP_NEG = 0, OP_ABS = 1, OP_SIGN = 2, OP_RECIP = 3, OP_FLOOR = 4, OP_CEIL = 5,
           OP_ROUND = 6, OP_TRUNC = 7, OP_NOT = 8, OP_POPCOUNT = 9, OP_IS_NAN = 10,
           OP_IS_INF = 11, OP_IS_NEG = 12, OP_SHL = 13, OP_SHR = 14, OP_CLAMP = 15,
           OP_CAST = 16, OP_IOTA = 17, OP_FILTER = 18;
const uint OP_MIN = 20, OP_MAX = 21, OP_FLOOR_DIV = 22, OP_REM = 23, OP_AND = 24, OP_OR = 25,
           OP_XOR = 26, OP_EQ = 27, OP_NE = 28, OP_LT = 29, OP_LE = 30, OP_GT = 31, OP_GE = 32,
           OP_ADD = 33, OP_SUB = 34, OP_MUL = 35, OP_DIV = 36;
const uint OP_EXP = 40, OP_LOG = 41, OP_SQRT = 42, OP_SIN = 43, OP_COS = 44, OP_TANH = 45,
           OP_ERF = 46, OP_RSQRT = 47, OP_SIGMOID = 48, OP_SILU = 49, OP_GELU = 50,
           OP_GELU_TANH = 51, OP_POW = 52, OP_FMA = 53;
const uint HAS_MASK = 1, HAS_LO = 2, HAS_HI = 4;

// p: as ew.comp (count, rank, a/b/c element offsets, y element offset, flags, -, settings
// s0..s3 as (low, high) word pairs at 8..15, (dim, a, b, c strides) per dim from 16).
layout(std430, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) readonly buffer C { uint c[]; };
layout(std430, binding = 4) buffer Y { uint y[]; };

#define BITS_OF(dt)                                             \
  (((dt) >= DT_F64 && (dt) <= DT_U64)   ? 64u                   \
   : (dt) <= DT_U32                     ? 32u                   \
   : (dt) <= DT_U16                     ? 16u                   \
   : ((dt) <= DT_BOOL || (dt) == DT_F8) ? 8u                    \
   : ((dt) == DT_I4 || (dt) == DT_U4)   ? 4u                    \
   : ((dt) == DT_I2 || (dt) == DT_U2)   ? 2u                    \
                                        : 1u)
const uint IN_BITS = BITS_OF(DT_IN);
const uint OUT_BITS = BITS_OF(DT_OUT);
const uint C_BITS = OP != OP_FILTER ? IN_BITS : BITS_OF(DT_C);
const uint NUM_INPUTS = OP == OP_IOTA ? 0u
                        : (OP >= OP_MIN && OP <= OP_DIV) || OP == OP_POW ? 2u
                        : OP == OP_FILTER || OP == OP_FMA ? 3u : 1u;

bool dt_float(uint dt) {
  return dt == DT_F32 || dt == DT_F16 || dt == DT_BF16 || dt == DT_F8 || dt == DT_F64;
}
bool dt_signed(uint dt) {
  return dt == DT_I32 || dt == DT_I16 || dt == DT_I8 || dt == DT_I4 || dt == DT_I2 ||
         dt == DT_I1 || dt == DT_I64;
}
uint dt_bits(uint dt) { return BITS_OF(dt); }
uint dt_mask(uint dt) { return dt_bits(dt) >= 32u ? 0xffffffffu : (1u << dt_bits(dt)) - 1u; }

bool flag(uint f) { return (p[6] & f) != 0u; }
uvec2 setting(uint k) { return uvec2(p[8u + 2u * k], p[9u + 2u * k]); }

// Element k of a buffer of `bits`-sized elements as (low, high), zero-extended.
#define LOAD_BITS(buf, k, bits)                                                              \
  ((bits) == 64u   ? uvec2(buf[2u * (k)], buf[2u * (k) + 1u])                                \
   : (bits) == 32u ? uvec2(buf[k], 0u)                                                       \
                   : uvec2((buf[(k) / (32u / (bits))] >> (((k) % (32u / (bits))) * (bits))) & \
                               ((1u << (bits)) - 1u),                                        \
                           0u))

uvec3 locate(uint i) {
  uvec3 abc = uvec3(0u);
  uint rest = i;
  for (int d = int(p[1]) - 1; d >= 0; --d) {
    const uint base = 16u + 4u * uint(d);
    const uint co = rest % p[base];
    rest /= p[base];
    abc += co * uvec3(p[base + 1u], p[base + 2u], p[base + 3u]);
  }
  return abc;
}

int sext(uint v, uint dt) {
  const uint w = dt_bits(dt);
  return w >= 32u ? int(v) : (int(v << (32u - w)) >> (32u - w));
}

// ---- 64-bit words as unsigned (high, low) order ----
bool ult64(uvec2 x, uvec2 z) { return x.y < z.y || (x.y == z.y && x.x < z.x); }
bool is_nan64(uvec2 v) {
  const uint hi = v.y & 0x7fffffffu;
  return hi > 0x7ff00000u || (hi == 0x7ff00000u && v.x != 0u);
}
bool is_zero64(uvec2 v) { return ((v.y & 0x7fffffffu) | v.x) == 0u; }
// f64 bits as an unsigned key in value order: -0 below +0 when `signed_zero`, else equal.
uvec2 f64_key(uvec2 v, bool signed_zero) {
  if (!signed_zero && is_zero64(v)) return uvec2(0u, 0x80000000u);
  return (v.y & 0x80000000u) != 0u ? ~v : uvec2(v.x, v.y | 0x80000000u);
}
uvec2 int_key(uvec2 v) { return dt_signed(DT_IN) ? uvec2(v.x, v.y ^ 0x80000000u) : v; }

// A smaller integer (or bool) of dtype dt as 64-bit two's-complement words.
uvec2 widen_int(uint raw, uint dt) {
  if (!dt_signed(dt)) return uvec2(raw, 0u);
  const int v = sext(raw, dt);
  return uvec2(uint(v), v < 0 ? 0xffffffffu : 0u);
}

// An integer given as sign and 64-bit magnitude into DT_OUT (of up to 32 bits or 64),
// saturating or wrapping (ops.md cast).
// Two's complement of a sign and magnitude, as DT_OUT's low bits (wrapping).
uvec2 wrap_out(uvec2 mag, bool neg) {
  uvec2 v = mag;
  if (neg) {
    uint borrow;
    const uint lo = usubBorrow(0u, mag.x, borrow);
    v = uvec2(lo, 0u - mag.y - borrow);
  }
  return OUT_BITS == 64u ? v : uvec2(v.x & dt_mask(DT_OUT), 0u);
}

uvec2 int_to_int_out(uvec2 mag, bool neg, bool saturate) {
  if (DT_OUT == DT_BOOL) return uvec2((mag.x | mag.y) != 0u ? 1u : 0u, 0u);
  if (!saturate || (mag.x | mag.y) == 0u) return wrap_out(mag, neg);
  const bool sgn = dt_signed(DT_OUT);
  if (neg && !sgn) return uvec2(0u);
  // limits as magnitudes: max = 2^(w-1) - 1 or 2^w - 1, |min| = 2^(w-1)
  uvec2 lim;
  if (OUT_BITS == 64u) {
    lim = sgn ? (neg ? uvec2(0u, 0x80000000u) : uvec2(0xffffffffu, 0x7fffffffu))
              : uvec2(0xffffffffu);
  } else {
    const uint m = dt_mask(DT_OUT);
    lim = uvec2(sgn ? (neg ? (m >> 1) + 1u : m >> 1) : m, 0u);
  }
  if (ult64(lim, mag)) mag = lim;
  return wrap_out(mag, neg);
}

// A 64-bit magnitude rounded to nearest even at `prec` significant bits, as f32 bits.
uint mag64_to_f32_bits(uvec2 mag, bool neg, uint prec) {
  if ((mag.x | mag.y) == 0u) return neg ? 0x80000000u : 0u;
  const int msb = mag.y != 0u ? 32 + findMSB(mag.y) : findMSB(mag.x);
  // keep the top `prec` bits: q = mag >> shift, rounded on the rest
  const uint shift = uint(max(msb + 1 - int(prec), 0));
  uint q = mag.x;
  bool above = false, tie = false;
  if (shift > 0u) {
    q = shift >= 32u ? mag.y >> (shift - 32u) : (mag.x >> shift) | (mag.y << (32u - shift));
    // the dropped bits against half a unit of q
    const uvec2 rest = shift >= 32u ? uvec2(mag.x, shift == 32u ? 0u : mag.y & ((1u << (shift - 32u)) - 1u))
                                    : uvec2(mag.x & ((1u << shift) - 1u), 0u);
    const uvec2 halfway = shift > 32u ? uvec2(0u, 1u << (shift - 33u)) : uvec2(1u << (shift - 1u), 0u);
    above = ult64(halfway, rest);
    tie = rest == halfway;
  }
  if (above || (tie && (q & 1u) != 0u)) ++q;
  // q < 2^(prec + 1) (a carry), value = q 2^shift, exactly an f32
  const float v = float(q) * uintBitsToFloat((127u + shift) << 23);
  return floatBitsToUint(v) | (neg ? 0x80000000u : 0u);
}

uint prec_of(uint dt) { return dt == DT_F32 ? 24u : dt == DT_F16 ? 11u : dt == DT_F8 ? 3u : 8u; }
uint encode_narrow(uint f32_bits, uint dt) {  // f32 bits to f32/f16/bf16/f8 bits
  if (dt == DT_F32) return f32_bits;
  return dt == DT_F8 ? narrow_f8_bits(f32_bits) : narrow_half_bits(f32_bits, dt == DT_BF16);
}

// floor/ceil/trunc/round of f32 bits, |x| < 1 decided on the bits (as ew.comp's round_bits).
uint round_f32_bits(uint x, uint mode) {  // mode: 0 trunc, 1 floor, 2 ceil, 3 nearest even
  const uint ax = x & 0x7fffffffu, s = x & 0x80000000u;
  if (ax >= 0x4b000000u) return x;
  if (ax >= 0x3f800000u) {
    const float f = uintBitsToFloat(x);
    const float v = mode == 1u ? floor(f) : mode == 2u ? ceil(f) : mode == 3u ? roundEven(f) : trunc(f);
    return floatBitsToUint(v) | s;
  }
  if (ax == 0u) return x;
  const bool one = (mode == 1u && s != 0u) || (mode == 2u && s == 0u) || (mode == 3u && ax > 0x3f000000u);
  return s | (one ? 0x3f800000u : 0u);
}

// A float of up to 32 bits (as f32 bits) cast to an integer DT_OUT (any width, bool too).
uvec2 f32_to_int_out(uint f, uint mode, bool saturate) {
  if (DT_OUT == DT_BOOL) return uvec2((f & 0x7fffffffu) != 0u ? 1u : 0u, 0u);
  if ((f & 0x7fffffffu) > 0x7f800000u) return uvec2(0u);
  const bool neg = (f & 0x80000000u) != 0u;
  if ((f & 0x7fffffffu) == 0x7f800000u) {
    return saturate ? int_to_int_out(uvec2(0xffffffffu), neg, true) : uvec2(0u);
  }
  const uint r = round_f32_bits(f, mode) & 0x7fffffffu;
  if (r == 0u) return uvec2(0u);
  // r = m 2^e exactly, m the 24-bit significand
  const uint m = (r & 0x7fffffu) | 0x800000u;
  const int e = int(r >> 23) - 150;
  uvec2 mag;
  if (e <= 0) {
    mag = uvec2(m >> uint(-e), 0u);
  } else if (e >= 64) {
    mag = uvec2(0u);  // a multiple of 2^64: wraps to 0; saturates below
  } else {
    const uint ue = uint(e);
    mag = ue >= 32u ? uvec2(0u, m << (ue - 32u)) : uvec2(m << ue, ue == 0u ? 0u : m >> (32u - ue));
  }
  if (saturate && e >= 41) mag = uvec2(0xffffffffu);  // at least 2^64: above every limit
  return int_to_int_out(mag, neg, saturate);
}

// ---- the DT_OUT bits of a result given as (low, high) ----
#if defined(F64)
uvec2 from_f64(double v) { return unpackDouble2x32(v); }
double f64_of(uvec2 w) { return packDouble2x32(w); }
const double TWO32 = 4294967296.0LF;

// f64 to f32 rounding to odd (inexact results get an odd last bit), so that a second rounding
// to f16/bf16/f8 (at most 11 bits) rounds once, correctly.
uint f64_to_f32_odd(uvec2 w) {
  if (is_nan64(w)) {  // quiet, keeping the payload's high bits
    return (w.y & 0x80000000u) | 0x7fc00000u | ((w.y & 0xfffffu) << 3) | (w.x >> 29);
  }
  const double v = f64_of(w);
  uint f = floatBitsToUint(float(v));
  if ((f & 0x7fffffffu) < 0x7f800000u && double(uintBitsToFloat(f)) != v && (f & 1u) == 0u) {
    f = abs(double(uintBitsToFloat(f))) < abs(v) ? f + 1u : f - 1u;
  }
  return f;
}

// An integral double as 64-bit two's-complement words modulo 2^64.
uvec2 f64_int_bits(double r) {
  const double m = r - 18446744073709551616.0LF * floor(r / 18446744073709551616.0LF);
  const double hi = floor(m / TWO32);
  return uvec2(uint(m - hi * TWO32), uint(hi));
}

// i64/u64 words to the nearest double (one rounding: the high part times 2^32 is exact).
double int64_to_f64(uvec2 w, bool sgn) {
  const double hi = sgn ? double(int(w.y)) : double(w.y);
  return hi * TWO32 + double(w.x);
}
#endif

uvec2 cast_value(uvec2 x) {
  const uint mode = setting(0).x;
  const bool saturate = setting(1).x != 0u;
#if defined(F64)
  if (DT_IN == DT_F64) {
    if (DT_OUT == DT_F64) return x;
    if (DT_OUT == DT_BOOL) return uvec2(is_zero64(x) ? 0u : 1u, 0u);
    if (dt_float(DT_OUT)) {
      const uint f = DT_OUT == DT_F32 ? floatBitsToUint(float(f64_of(x))) : f64_to_f32_odd(x);
      return uvec2(DT_OUT == DT_F32 && is_nan64(x) ? f64_to_f32_odd(x) : encode_narrow(f, DT_OUT), 0u);
    }
    if (is_nan64(x)) return uvec2(0u);
    const double v = f64_of(x);
    const bool neg = (x.y & 0x80000000u) != 0u;
    if ((x.y & 0x7fffffffu) == 0x7ff00000u) {
      return saturate ? int_to_int_out(uvec2(0xffffffffu), neg, true) : uvec2(0u);
    }
    const double r = mode == 1u ? floor(v) : mode == 2u ? ceil(v) : mode == 3u ? roundEven(v) : trunc(v);
    const double ar = abs(r);
    if (saturate && ar >= 18446744073709551616.0LF) return int_to_int_out(uvec2(0xffffffffu), neg, true);
    uvec2 mag = f64_int_bits(ar);  // |r| mod 2^64
    if (saturate || ar < 18446744073709551616.0LF) return int_to_int_out(mag, neg && ar != 0.0LF, saturate);
    return int_to_int_out(mag, neg, false);
  }
  // to f64
  if (DT_IN == DT_BOOL) return from_f64(x.x != 0u ? 1.0LF : 0.0LF);
  if (DT_IN == DT_I64 || DT_IN == DT_U64) return from_f64(int64_to_f64(x, DT_IN == DT_I64));
  if (dt_float(DT_IN)) {
    const uint f = DT_IN == DT_F32 ? x.x : floatBitsToUint(widen_float(x.x, DT_IN));
    if ((f & 0x7fffffffu) > 0x7f800000u) {  // quiet, the payload kept
      return uvec2((f & 7u) << 29, (f & 0x80000000u) | 0x7ff80000u | ((f & 0x7fffffu) >> 3));
    }
    if ((f & 0x7fffffffu) == 0x7f800000u) return uvec2(0u, (f & 0x80000000u) | 0x7ff00000u);
    return from_f64(f32_to_f64(f));
  }
  return from_f64(dt_signed(DT_IN) ? double(sext(x.x, DT_IN)) : double(x.x));
#else
  if (DT_IN == DT_I64 || DT_IN == DT_U64) {
    const bool neg = DT_IN == DT_I64 && (x.y & 0x80000000u) != 0u;
    uvec2 mag = x;
    if (neg) {
      uint borrow;
      const uint lo = usubBorrow(0u, x.x, borrow);
      mag = uvec2(lo, 0u - x.y - borrow);
    }
    if (dt_float(DT_OUT)) return uvec2(encode_narrow(mag64_to_f32_bits(mag, neg, prec_of(DT_OUT)), DT_OUT), 0u);
    return int_to_int_out(mag, neg, saturate);
  }
  // to i64/u64 from a float of up to 32 bits, an integer or bool
  if (dt_float(DT_IN)) {
    const uint f = DT_IN == DT_F32 ? x.x : floatBitsToUint(widen_float(x.x, DT_IN));
    return f32_to_int_out(f, mode, saturate);
  }
  const uvec2 v = widen_int(x.x, DT_IN);
  const bool neg = dt_signed(DT_IN) && sext(x.x, DT_IN) < 0;
  return int_to_int_out(neg ? uvec2(uint(-sext(x.x, DT_IN)), 0u) : v, neg, saturate);
#endif
}

#if defined(F64)
// The f64 math ops (wide_floats.glsl, math_f64.glsl and math_f64_full.glsl, f64 arithmetic
// written out): within the few ulp ops-nn.md allows; NaN, infinities and zeros as the CPU's
// libm gives them.
uvec2 math_op(uvec2 x, uvec2 z, uvec2 w) {
  if (OP == OP_FMA) {
    return from_f64(fma_any_f64(f64_of(x), f64_of(z), f64_of(w)));  // one rounding
  }
#if defined(MATH_FULL)
  if (OP == OP_POW) return pow_full_f64(x, z);  // pow(NaN, 0) = 1: its own NaN rules
#endif
  if (is_nan64(x)) return uvec2(x.x, x.y | 0x00080000u);
  const double v = f64_of(x);
  const bool inf = (x.y & 0x7fffffffu) == 0x7ff00000u && x.x == 0u;
  const bool neg = (x.y & 0x80000000u) != 0u;
  if (OP == OP_EXP) return from_f64(exp_any_f64(v));
  if (OP == OP_LOG) return from_f64(log_any_f64(v));
  if (OP == OP_SQRT) return from_f64(sqrt_any_f64(v));
#if defined(MATH_FULL)
  if (OP == OP_SIN || OP == OP_COS) return sincos_full_f64(x, OP == OP_COS);
  if (OP == OP_ERF) return from_f64(erf_full_f64(v));  // keeps -0; +-inf give +-1
  if (OP == OP_GELU) return gelu_full_f64(x);
  if (OP == OP_GELU_TANH) return gelu_tanh_full_f64(x);
#endif
  if (OP == OP_RSQRT) {
    if (is_zero64(x)) return uvec2(0u, (x.y & 0x80000000u) | 0x7ff00000u);
    if (neg) return from_f64(nan_f64());
    return inf ? uvec2(0u) : from_f64(1.0LF / sqrt_any_f64(v));
  }
  if (OP == OP_TANH) {
    if (is_zero64(x)) return x;  // keeps -0
    return inf ? from_f64(neg ? -1.0LF : 1.0LF) : from_f64(tanh_f64(v));
  }
  if (OP == OP_SIGMOID) {
    if (inf) return from_f64(neg ? 0.0LF : 1.0LF);
    return from_f64(1.0LF / (1.0LF + exp_f64(-v)));
  }
  // silu: +inf stays, -inf gives NaN (inf / inf)
  if (inf) return neg ? from_f64(nan_f64()) : x;
  return from_f64(v / (1.0LF + exp_f64(-v)));
}

uvec2 float_op(uvec2 x, uvec2 z) {
  const bool xnan = is_nan64(x), znan = is_nan64(z);
  const uvec2 quiet_x = uvec2(x.x, x.y | 0x00080000u), quiet_z = uvec2(z.x, z.y | 0x00080000u);
  if (OP == OP_NEG) return uvec2(x.x, x.y ^ 0x80000000u);
  if (OP == OP_ABS) return uvec2(x.x, x.y & 0x7fffffffu);
  if (OP == OP_SIGN) return uvec2(xnan || is_zero64(x) ? 0u : (x.y & 0x80000000u) != 0u ? 0xffu : 1u, 0u);
  if (OP == OP_IS_NAN) return uvec2(xnan ? 1u : 0u, 0u);
  if (OP == OP_IS_INF) return uvec2((x.y & 0x7fffffffu) == 0x7ff00000u && x.x == 0u ? 1u : 0u, 0u);
  if (OP == OP_IS_NEG) return uvec2((x.y & 0x80000000u) != 0u && !is_zero64(x) && !xnan ? 1u : 0u, 0u);
  if (xnan && OP != OP_NE && !(OP >= OP_EQ && OP <= OP_GE)) return quiet_x;
  const double v = f64_of(x);
  if (OP == OP_RECIP) {
    if (is_zero64(x) && flag(HAS_MASK)) return setting(0);
    return from_f64(1.0LF / v);
  }
  if (OP == OP_FLOOR) return from_f64(floor(v));
  if (OP == OP_CEIL) return from_f64(ceil(v));
  if (OP == OP_ROUND) return from_f64(roundEven(v));
  if (OP == OP_TRUNC) return from_f64(trunc(v));
  if (OP == OP_CLAMP) {
    uvec2 r = x;
    if (ult64(f64_key(r, true), f64_key(setting(0), true))) r = setting(0);
    if (ult64(f64_key(setting(1), true), f64_key(r, true))) r = setting(1);
    return r;
  }
  if (OP == OP_MIN || OP == OP_MAX) {
    if (znan) return quiet_z;
    const bool x_less = ult64(f64_key(x, true), f64_key(z, true));
    return (OP == OP_MIN) == x_less ? x : z;
  }
  // comparisons: NaN compares false except ne; -0 equals +0
  if (xnan || znan) return uvec2(OP == OP_NE ? 1u : 0u, 0u);
  const uvec2 kx = f64_key(x, false), kz = f64_key(z, false);
  const bool lt = ult64(kx, kz), eq = kx == kz;
  const bool r = OP == OP_EQ ? eq : OP == OP_NE ? !eq : OP == OP_LT ? lt : OP == OP_LE ? lt || eq
                 : OP == OP_GT ? !lt && !eq : !lt;
  return uvec2(r ? 1u : 0u, 0u);
}
#endif

#if defined(I64)
// The i64/u64 ops (int64_ops.glsl: one definition for the native and the emulated build).
uvec2 int_op(uvec2 x, uvec2 z) {
  if (IN_BITS < 64u) {  // accumulate (acc=) into i64/u64: the inputs converted exactly
    x = widen_int(x.x, DT_IN);
    z = widen_int(z.x, DT_IN);
  }
  const bool sgn = dt_signed(DT_IN);
  if (OP == OP_ADD) return i64_add(x, z);
  if (OP == OP_SUB) return i64_sub(x, z);
  if (OP == OP_MUL) return i64_mul(x, z);
  if (OP == OP_NEG) return i64_neg(x);
  if (OP == OP_ABS) return i64_abs(x, sgn);
  if (OP == OP_SIGN) return uvec2(i64_sign_op(x, sgn), 0u);
  if (OP == OP_NOT) return i64_not(x);
  if (OP == OP_POPCOUNT) return uvec2(i64_popcount(x), 0u);
  if (OP == OP_IS_NEG) return uvec2(i64_negative(x, sgn) ? 1u : 0u, 0u);
  // bits: a 32-bit setting; one above 2^32 counts as 64 or more
  const uint bits = setting(0).y != 0u ? 64u : setting(0).x;
  if (OP == OP_SHL) return i64_shl(x, bits);
  if (OP == OP_SHR) return i64_shr(x, bits, sgn);
  if (OP == OP_AND) return i64_and(x, z);
  if (OP == OP_OR) return i64_or(x, z);
  if (OP == OP_XOR) return i64_xor(x, z);
  if (OP == OP_CLAMP) return i64_clamp(x, setting(0), setting(1), flag(HAS_LO), flag(HAS_HI), sgn);
  if (OP == OP_MIN) return i64_min(x, z, sgn);
  if (OP == OP_MAX) return i64_max(x, z, sgn);
  if (OP >= OP_EQ && OP <= OP_GE) {
    const bool lt = i64_less(x, z, sgn), eq = x == z;
    const bool r = OP == OP_EQ ? eq : OP == OP_NE ? !eq : OP == OP_LT ? lt
                   : OP == OP_LE ? lt || eq : OP == OP_GT ? !lt && !eq : !lt;
    return uvec2(r ? 1u : 0u, 0u);
  }
  const uint kind = OP == OP_REM ? I64_REM : OP == OP_FLOOR_DIV ? I64_FLOOR_DIV : I64_DIV;
  return i64_divide(kind, x, z, sgn, flag(HAS_MASK), setting(0));
}
#endif

uvec2 compute(uint i) {
  if (OP == OP_IOTA) {  // the index along the axis: s0 = axis size, s1 = inner stride
    const uint idx = (i / setting(1).x) % setting(0).x;
#if defined(F64)
    if (DT_OUT == DT_F64) return from_f64(double(idx));
#endif
    return uvec2(idx, 0u);
  }
  const uvec3 e = locate(i);
  const uvec2 x = LOAD_BITS(a, p[2] + e.x, IN_BITS);
  const uvec2 z = NUM_INPUTS >= 2u ? LOAD_BITS(b, p[3] + e.y, IN_BITS) : uvec2(0u);
  if (OP == OP_FILTER) {  // c != 0 ? a : b; an f64 c compares as a number (-0 is 0, NaN is not)
    const uvec2 w = LOAD_BITS(c, p[4] + e.z, C_BITS);
    const bool take = DT_C == DT_F64 ? !is_zero64(w) : (w.x | w.y) != 0u;
    return take ? x : z;
  }
  if (OP == OP_CAST) return cast_value(x);
#if defined(F64)
  if (OP >= OP_EXP) return math_op(x, z, NUM_INPUTS >= 3u ? LOAD_BITS(c, p[4] + e.z, IN_BITS) : uvec2(0u));
  return float_op(x, z);
#else
  return int_op(x, z);
#endif
}

void main() {
  const uint first = p[5], end = p[5] + p[0];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (OUT_BITS == 64u) {
    for (uint i = gl_GlobalInvocationID.x; i < p[0]; i += stride) {
      const uvec2 v = compute(i);
      y[2u * (first + i)] = v.x;
      y[2u * (first + i) + 1u] = v.y;
    }
    return;
  }
  const uint per = 32u / OUT_BITS, bits_per = OUT_BITS;
  const uint w0 = first / per, words = (end + per - 1u) / per - w0;
  for (uint j = gl_GlobalInvocationID.x; j < words; j += stride) {
    const uint w = w0 + j;
    uint bits = 0u, keep = 0u;
    for (uint k = 0u; k < per; ++k) {
      const uint g = w * per + k, shift = k * bits_per;
      const uint m = per == 1u ? 0xffffffffu : ((1u << bits_per) - 1u) << shift;
      if (g >= first && g < end) {
        bits |= (compute(g - first).x << shift) & m;
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
