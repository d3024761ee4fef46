// dequantize(x, scale[, zero_point]) of ops-nn.md: y = (x - zero_point) * scale for x i8, u8,
// i4 or u4 (packed two a byte, LSB first, read in place) and scale f32, f16, bf16 or f8 (a
// scalar or one per channel of `axis`), or f64 with -DF64. The difference is an exact integer,
// multiplied by the scale in f32 (f64) and rounded once to y's dtype. One invocation per output
// element; 16- and 8-bit results by atomics.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#if defined(F64)
#include "wide_floats.glsl"
#endif

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint XDT = 0;  // 0 i8, 1 u8, 2 i4, 3 u4
layout(constant_id = 1) const uint SDT = 0;  // 0 f32, 3 f16, 4 bf16, 13 f8 (also y's); F64: f64
const uint SDT_F32 = 0;

// p: count, channels, inner, x / scale / zero point / y element offsets, has zero point.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer X { uint x[]; };
layout(std430, binding = 2) readonly buffer S { uint s[]; };
layout(std430, binding = 3) readonly buffer Z { uint z[]; };
layout(std430, binding = 4) buffer Y { uint y[]; };

int quantized(uint k, bool from_z) {
  const bool four = XDT >= 2u, sgn = XDT == 0u || XDT == 2u;
  const uint bits = four ? 4u : 8u, per = 32u / bits;
  const uint w = from_z ? z[k / per] : x[k / per];
  const uint v = (w >> ((k % per) * bits)) & ((1u << bits) - 1u);
  return sgn ? int(v << (32u - bits)) >> (32u - bits) : int(v);
}

#if defined(F64)
double scale_at(uint k) { return LOAD_F64(s, k); }
void store(uint e, double v) STORE_F64(y, e, v)
#define real double
#else
float scale_at(uint k) { return widen_float(RAW_AT(s, k, float_bytes(SDT)), SDT); }
void store(uint e, float v) {
  if (SDT == SDT_F32) {
    y[e] = floatBitsToUint(v);
    return;
  }
  const uint bytes = float_bytes(SDT), per = 4u / bytes, shift = (e % per) * 8u * bytes;
  atomicAnd(y[e / per], ~(((1u << (8u * bytes)) - 1u) << shift));
  atomicOr(y[e / per], narrow_float(v, SDT) << shift);
}
#define real float
#endif

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p[0]; i += stride) {
    const uint c = (i / p[2]) % p[1];
    int d = quantized(p[3] + i, false);
    if (p[7] != 0u) d -= quantized(p[5] + c, true);
    store(p[6] + i, real(d) * scale_at(p[4] + c));
  }
}
