// Row ops of ops-nn.md for f32, f16 and bf16: softmax and log_softmax over one axis,
// layer_norm and rms_norm over the trailing axes. One workgroup a row (grid-strided over rows);
// the row's statistics are reduced in shared memory in f32. A row is n elements `inner` apart:
// row r starts at (r / inner) n inner + r % inner. 16-bit outputs are written with atomics (the
// neighbouring half-word belongs to another invocation or row).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint OP = 0;  // values: kernels/row_ops.cpp
layout(constant_id = 1) const uint DT = 0;  // 0 f32, 3 f16, 4 bf16 (ew.comp's codes)
const uint OP_SOFTMAX = 0, OP_LOG_SOFTMAX = 1, OP_LAYER_NORM = 2, OP_RMS_NORM = 3;
const uint DT_F32 = 0, DT_BF16 = 4;

// p: rows, n, inner, x / y / scale / bias element offsets, has bias, epsilon (f32 bits).
layout(std430, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer X { uint x[]; };
layout(std430, binding = 2) readonly buffer Scale { uint sc[]; };
layout(std430, binding = 3) readonly buffer Bias { uint bi[]; };
layout(std430, binding = 4) buffer Y { uint y[]; };

shared float red[256];

#define LOAD(buf, k) \
  (DT == DT_F32 ? uintBitsToFloat(buf[k]) \
                : widen_half((buf[(k) >> 1] >> (((k) & 1u) * 16u)) & 0xffffu, DT == DT_BF16))

void store(uint k, float v) {
  if (DT == DT_F32) {
    y[k] = floatBitsToUint(v);
    return;
  }
  const uint shift = (k & 1u) * 16u;
  atomicAnd(y[k >> 1], ~(0xffffu << shift));
  atomicOr(y[k >> 1], narrow_half(v, DT == DT_BF16) << shift);
}

bool is_nan(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }

// Tree reduction of red[]: sum, or max with NaN winning.
float reduce(float v, bool take_max) {
  const uint t = gl_LocalInvocationID.x;
  red[t] = v;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (t < s) {
      const float a = red[t], b = red[t + s];
      red[t] = take_max ? (is_nan(a) || a >= b ? a : b) : a + b;
    }
    barrier();
  }
  const float r = red[0];
  barrier();  // red[] is reused by the next reduction
  return r;
}

void main() {
  const uint n = p[1], inner = p[2], t = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < p[0]; row += gl_NumWorkGroups.x) {
    const uint base = (row / inner) * n * inner + row % inner;
    const uint xb = p[3] + base, yb = p[4] + base;
    if (OP == OP_SOFTMAX || OP == OP_LOG_SOFTMAX) {
      float m = uintBitsToFloat(0xff800000u);  // -inf
      for (uint k = t; k < n; k += 256u) {
        const float v = LOAD(x, xb + k * inner);
        if (is_nan(v) || v > m) m = v;
        if (is_nan(m)) break;
      }
      m = reduce(m, true);
      float s = 0.0;
      for (uint k = t; k < n; k += 256u) s += exp(LOAD(x, xb + k * inner) - m);
      s = reduce(s, false);
      const float log_s = log(s);
      for (uint k = t; k < n; k += 256u) {
        const float d = LOAD(x, xb + k * inner) - m;
        store(yb + k * inner, OP == OP_SOFTMAX ? exp(d) / s : d - log_s);
      }
    } else {
      float mean = 0.0;
      if (OP == OP_LAYER_NORM) {
        float s = 0.0;
        for (uint k = t; k < n; k += 256u) s += LOAD(x, xb + k * inner);
        mean = reduce(s, false) / float(n);
      }
      float q = 0.0;
      for (uint k = t; k < n; k += 256u) {
        const float d = LOAD(x, xb + k * inner) - mean;
        q += d * d;
      }
      const float var = reduce(q, false) / float(n);
      const float inv = 1.0 / sqrt(var + uintBitsToFloat(p[8]));
      for (uint k = t; k < n; k += 256u) {
        float v = (LOAD(x, xb + k * inner) - mean) * inv * LOAD(sc, p[5] + k);
        if (p[7] != 0u) v += LOAD(bi, p[6] + k);
        store(yb + k * inner, v);
      }
    }
  }
}
