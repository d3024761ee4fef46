// rope(x, pos) of ops-nn.md for f32, f16, bf16 and f8, and with -DF64 for f64: one invocation per
// rotated pair, reading the pair's cos and sin from a table the host computed in f64 for this
// call's positions (rounded to f32; kept f64 for f64), rotating in f32 (f64) and rounding once
// to x's dtype. 16-bit results are written with atomics
// (the other half-word belongs to another pair). In place is safe: a pair is read, then written.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#if defined(F64)
#include "wide_floats.glsl"
#endif

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint DT = 0;  // 0 f32, 3 f16, 4 bf16, 13 f8
const uint DT_F32 = 0;

// p: pairs, T, D/2, interleaved, x / y element offsets; table: (cos, sin) per (t, i).
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer X { uint x[]; };
layout(std430, binding = 2) readonly buffer Table { uint table[]; };
layout(std430, binding = 3) buffer Y { uint y[]; };

#if defined(F64)
#define real double
double load(uint e) { return LOAD_F64(x, e); }
void store(uint e, double v) STORE_F64(y, e, v)
double entry(uint k) { return LOAD_F64(table, k); }
#else
#define real float
float load(uint e) { return widen_float(RAW_AT(x, e, float_bytes(DT)), DT); }

void store(uint e, float v) {
  if (DT == DT_F32) {
    y[e] = floatBitsToUint(v);
    return;
  }
  const uint bytes = float_bytes(DT), per = 4u / bytes, shift = (e % per) * 8u * bytes;
  atomicAnd(y[e / per], ~(((1u << (8u * bytes)) - 1u) << shift));
  atomicOr(y[e / per], narrow_float(v, DT) << shift);
}
float entry(uint k) { return uintBitsToFloat(table[k]); }
#endif

void main() {
  const uint half_d = p[2], stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint j = gl_GlobalInvocationID.x; j < p[0]; j += stride) {
    const uint i = j % half_d, row = j / half_d, t = row % p[1];
    const uint base = row * 2u * half_d;
    const uint ia = base + (p[3] != 0u ? 2u * i : i), ib = ia + (p[3] != 0u ? 1u : half_d);
    const real a = load(p[4] + ia), b = load(p[4] + ib);
    const real c = entry(2u * (t * half_d + i)), s = entry(2u * (t * half_d + i) + 1u);
    precise real ya = a * c - b * s;
    precise real yb = a * s + b * c;
    store(p[5] + ia, ya);
    store(p[5] + ib, yb);
  }
}
