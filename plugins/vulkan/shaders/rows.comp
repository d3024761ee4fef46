// Row ops of ops-nn.md for f32, f16, bf16 and f8 (statistics in f32) and, built with -DF64, for
// f64 (in f64, with math_f64.glsl's exp and log): softmax and log_softmax over one axis,
// layer_norm and rms_norm over the trailing axes. One workgroup a row (grid-strided over rows);
// the row's statistics are reduced in shared memory. A row is n elements `inner` apart:
// row r starts at (r / inner) n inner + r % inner. 16- and 8-bit outputs are written with
// atomics (the rest of the word belongs to another invocation or row).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#if defined(F64)
#include "wide_floats.glsl"
#endif

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint OP = 0;  // values: kernels/row_ops.cpp
layout(constant_id = 1) const uint DT = 0;  // 0 f32, 3 f16, 4 bf16, 13 f8 (ew.comp's); F64: any
const uint OP_SOFTMAX = 0, OP_LOG_SOFTMAX = 1, OP_LAYER_NORM = 2, OP_RMS_NORM = 3;
const uint DT_F32 = 0;

// p: rows, n, inner, x / y / scale / bias element offsets, has bias, epsilon (f32 bits; f64
// bits in 8 and 9 with -DF64).
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer X { uint x[]; };
layout(std430, binding = 2) readonly buffer Scale { uint sc[]; };
layout(std430, binding = 3) readonly buffer Bias { uint bi[]; };
layout(std430, binding = 4) buffer Y { uint y[]; };

#if defined(F64)
#define real double
#define LOAD(buf, k) LOAD_F64(buf, k)
void store(uint k, double v) STORE_F64(y, k, v)
bool is_nan(double v) { return is_nan_f64(v); }
double exp_r(double v) { return exp_any_f64(v); }
double log_r(double v) { return log_any_f64(v); }
double inv_sqrt_r(double v) { return 1.0LF / sqrt_any_f64(v); }
double epsilon() { return packDouble2x32(uvec2(p[8], p[9])); }
double neg_inf() { return neg_inf_f64(); }
#else
#define real float
#define LOAD(buf, k) widen_float(RAW_AT(buf, k, float_bytes(DT)), DT)

void store(uint k, float v) {
  if (DT == DT_F32) {
    y[k] = floatBitsToUint(v);
    return;
  }
  const uint bytes = float_bytes(DT), per = 4u / bytes, shift = (k % per) * 8u * bytes;
  const uint m = ((1u << (8u * bytes)) - 1u) << shift;
  atomicAnd(y[k / per], ~m);
  atomicOr(y[k / per], narrow_float(v, DT) << shift);
}

bool is_nan(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }
float exp_r(float v) { return exp(v); }
float log_r(float v) { return log(v); }
float inv_sqrt_r(float v) { return 1.0 / sqrt(v); }
float epsilon() { return uintBitsToFloat(p[8]); }
float neg_inf() { return uintBitsToFloat(0xff800000u); }
#endif

shared real red[256];

// Tree reduction of red[]: sum, or max with NaN winning.
real reduce(real v, bool take_max) {
  const uint t = gl_LocalInvocationID.x;
  red[t] = v;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (t < s) {
      const real a = red[t], b = red[t + s];
      red[t] = take_max ? (is_nan(a) || a >= b ? a : b) : a + b;
    }
    barrier();
  }
  const real r = red[0];
  barrier();  // red[] is reused by the next reduction
  return r;
}

void main() {
  const uint n = p[1], inner = p[2], t = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < p[0]; row += gl_NumWorkGroups.x) {
    const uint base = (row / inner) * n * inner + row % inner;
    const uint xb = p[3] + base, yb = p[4] + base;
    if (OP == OP_SOFTMAX || OP == OP_LOG_SOFTMAX) {
      real m = neg_inf();
      for (uint k = t; k < n; k += 256u) {
        const real v = LOAD(x, xb + k * inner);
        if (is_nan(v) || v > m) m = v;
        if (is_nan(m)) break;
      }
      m = reduce(m, true);
      real s = 0.0;
      for (uint k = t; k < n; k += 256u) s += exp_r(LOAD(x, xb + k * inner) - m);
      s = reduce(s, false);
      const real log_s = log_r(s);
      for (uint k = t; k < n; k += 256u) {
        const real d = LOAD(x, xb + k * inner) - m;
        store(yb + k * inner, OP == OP_SOFTMAX ? exp_r(d) / s : d - log_s);
      }
    } else {
      real mean = 0.0;
      if (OP == OP_LAYER_NORM) {
        real s = 0.0;
        for (uint k = t; k < n; k += 256u) s += LOAD(x, xb + k * inner);
        mean = reduce(s, false) / real(n);
      }
      real q = 0.0, s1 = 0.0;
      for (uint k = t; k < n; k += 256u) {
        const real d = LOAD(x, xb + k * inner) - mean;
        q += d * d;
        s1 += d;
      }
      q = reduce(q, false);
      if (OP == OP_LAYER_NORM) {
        // Corrected two-pass: the deviations' own sum removes the first mean's rounding error
        // (large against a small spread when the values sit far from 0).
        s1 = reduce(s1, false);
        mean += s1 / real(n);
        q -= s1 * s1 / real(n);
      }
      // A NaN in the row makes every result NaN (as the CPU backend): max() may drop it.
      const real var = is_nan(q) ? q : max(q, real(0.0)) / real(n);
      const real inv = inv_sqrt_r(var + epsilon());
      for (uint k = t; k < n; k += 256u) {
        real v = (LOAD(x, xb + k * inner) - mean) * inv * LOAD(sc, p[5] + k);
        if (p[7] != 0u) v += LOAD(bi, p[6] + k);
        store(yb + k * inner, v);
      }
    }
  }
}
