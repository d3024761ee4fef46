// Elementwise ops on f16 and bf16 (ops.md: widened exactly to f32, computed in f32, rounded
// once to the output dtype, nearest-even). The data stays in word-addressed buffers, two
// elements a word, so no device feature is needed: conversions are integer code here, exact and
// the same on every driver. One invocation writes one output word; a word the tensor shares with
// its neighbours at either end is updated with atomics, leaving the other half alone.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "div_f32.glsl"
// -DEXACT_F32 (the "_exact" variants, for devices that flush f32 subnormals: device.cpp): a bf16
// subnormal widens to an f32 subnormal, so add, sub, mul and relu use exact_f32.glsl's helpers.
// (f16 values widen to normal f32, and their sums and products stay normal.)
#if defined(EXACT_F32)
#include "exact_f32.glsl"
#define F_ADD(x, z) oi_add(x, z)
#define F_SUB(x, z) oi_sub(x, z)
#define F_MUL(x, z) oi_mul(x, z)
#define F_GE(x, z) oi_ge(x, z)
#define F_LT(x, z) oi_lt(x, z)
#define F_GT(x, z) oi_gt(x, z)
#define F_IS_ZERO(r) ((floatBitsToUint(r) & 0x7fffffffu) == 0u)
#else
#define F_ADD(x, z) ((x) + (z))
#define F_SUB(x, z) ((x) - (z))
#define F_MUL(x, z) ((x) * (z))
#define F_GE(x, z) ((x) >= (z))
#define F_LT(x, z) ((x) < (z))
#define F_GT(x, z) ((x) > (z))
#define F_IS_ZERO(r) ((r) == 0.0)
#endif

layout(local_size_x = 256) in;

// Values of OP and DTYPE: kernels/elementwise.hpp.
layout(constant_id = 0) const uint OP = 0;
layout(constant_id = 1) const uint DTYPE = 0;
const uint OP_ADD = 0, OP_SUB = 1, OP_MUL = 2, OP_DIV = 3, OP_RELU = 4, OP_FILL = 5;
const uint DT_F16 = 3, DT_BF16 = 4;
const uint HAS_MASK = 1, HAS_LO = 2, HAS_HI = 4;

// p as in eltwise.comp, but the a/b/y offsets count 16-bit elements; settings are f32 bits
// (the fill value: the output dtype's bits, rounded on the host).
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) buffer Y { uint y[]; };

bool flag(uint f) { return (p[5] & f) != 0u; }

float widen(uint h) {
  if (DTYPE == DT_BF16) return uintBitsToFloat(h << 16);
  uint s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 31u) return uintBitsToFloat(s | 0x7f800000u | (m << 13));
  if (e == 0u) return uintBitsToFloat(s | floatBitsToUint(float(m) * 5.9604644775390625e-8));
  return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
}

// Round to nearest, ties to even; overflow to inf; NaN stays NaN, quiet, keeping the
// payload's high bits (plugin_api/include/openinfer/float_formats.hpp does the same).
uint narrow(float v) {
  uint x = floatBitsToUint(v);
  uint ax = x & 0x7fffffffu;
  if (DTYPE == DT_BF16) {
    if (ax > 0x7f800000u) return (x >> 16) | 0x40u;
    return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  }
  uint s = (x >> 16) & 0x8000u;
  if (ax > 0x7f800000u) return s | 0x7e00u | ((ax >> 13) & 0x3ffu);
  if (ax >= 0x477ff000u) return s | 0x7c00u;  // 65520 and up round to inf
  if (ax >= 0x38800000u) {                     // a normal f16: rebias, round off 13 bits
    uint r = ax - 0x38000000u;
    return s | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13);
  }
  uint e = ax >> 23;
  if (e < 102u) return s;  // below 2^-25 (or exactly it: a tie to 0)
  uint m = (ax & 0x7fffffu) | 0x800000u, shift = 126u - e;  // units of 2^-24
  uint q = m >> shift, rest = m & ((1u << shift) - 1u), tie = 1u << (shift - 1u);
  if (rest > tie || (rest == tie && (q & 1u) != 0u)) ++q;
  return s | q;
}

uint load(uint k, bool from_b) {
  uint h = (from_b ? p[3] : p[2]) + k;
  uint w = from_b ? b[h >> 1] : a[h >> 1];
  return (h & 1u) != 0u ? w >> 16 : w & 0xffffu;
}

// The element indices of a and b for output element i (strides are 0 on broadcast dims).
uvec2 locate(uint i) {
  uvec2 ab = uvec2(0u);
  uint rest = i;
  for (int d = int(p[1]) - 1; d >= 0; --d) {
    uint base = 16u + 3u * uint(d);
    uint c = rest % p[base];
    rest /= p[base];
    ab += c * uvec2(p[base + 1u], p[base + 2u]);
  }
  return ab;
}

float setting(uint k) { return uintBitsToFloat(p[6u + 2u * k]); }

uint compute(uint i) {
  if (OP == OP_FILL) return p[6] & 0xffffu;
  uvec2 ab = locate(i);
  float x = widen(load(ab.x, false));
  float z = OP <= OP_DIV ? widen(load(ab.y, true)) : 0.0;
  if (OP == OP_ADD) return narrow(F_ADD(x, z));
  if (OP == OP_SUB) return narrow(F_SUB(x, z));
  if (OP == OP_MUL) return narrow(F_MUL(x, z));
  if (OP == OP_DIV) {
    const uint zb = floatBitsToUint(z);  // a subnormal bf16 divisor is not zero (div_f32.glsl)
    if ((zb & 0x7fffffffu) == 0u && flag(HAS_MASK)) return narrow(setting(0));
    return narrow(uintBitsToFloat(div_f32_bits(floatBitsToUint(x), zb)));
  }
  // relu: a zero result is +0.0; the clamps keep NaN because NaN compares false.
  float r = F_GE(x, 0.0) ? x : F_MUL(setting(0), x);
  uint bits = F_IS_ZERO(r) ? 0u : narrow(r);
  if (flag(HAS_LO) && F_LT(r, setting(1))) {
    r = setting(1);
    bits = narrow(r);
  }
  if (flag(HAS_HI) && F_GT(r, setting(2))) bits = narrow(setting(2));
  return bits;
}

void main() {
  uint first = p[4], end = p[4] + p[0];  // output elements [first, end), in 16-bit units
  uint w0 = first >> 1, words = ((end + 1u) >> 1) - w0;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint j = gl_GlobalInvocationID.x; j < words; j += stride) {
    uint w = w0 + j, lo = 2u * w, hi = lo + 1u;
    bool has_lo = lo >= first, has_hi = hi < end;
    uint bits = (has_lo ? compute(lo - first) : 0u) | (has_hi ? compute(hi - first) << 16 : 0u);
    if (has_lo && has_hi) {
      y[w] = bits;
    } else {
      atomicAnd(y[w], has_lo ? 0xffff0000u : 0x0000ffffu);
      atomicOr(y[w], bits);
    }
  }
}
