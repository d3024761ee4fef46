// Elementwise ops over word-addressed buffers, one element per invocation in a grid-stride loop.
// Compiled per compute width (the 64-bit types need their own SPIR-V capabilities); the op and
// the dtype are specialization constants. Settings arrive as bit patterns of the compute type.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if defined(WIDTH_I64) && !defined(INT64_EMULATED)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#include "float_controls.glsl"
#if defined(WIDTH_I64)
#include "int64_ops.glsl"  // i64 over uint64_t, or 32-bit words with -DINT64_EMULATED
#endif

layout(local_size_x = 256) in;

// Values of OP and DTYPE: kernels/elementwise.hpp.
layout(constant_id = 0) const uint OP = 0;
layout(constant_id = 1) const uint DTYPE = 0;
// Quads (uvec4) per invocation and loop trip on the vector path: all loaded before any is
// computed, so that each invocation keeps UNROLL * 16 (or 32) bytes of loads in flight.
layout(constant_id = 2) const uint UNROLL = 1;
const uint OP_ADD = 0, OP_SUB = 1, OP_MUL = 2, OP_DIV = 3, OP_RELU = 4, OP_FILL = 5;
const uint DT_F32 = 0, DT_I32 = 1, DT_W64 = 2;  // DT_W64: fill of any 8-byte type
const uint HAS_MASK = 1, HAS_LO = 2, HAS_HI = 4, HAS_PLAIN = 8;  // HAS_PLAIN: relu f32 only

// p: count, rank, a/b/y word offsets, flags, s0 (alpha, mask, fill value), s1 (clamp_min),
// s2 (clamp_max) as two words each, then (dim, a stride, b stride) per dim from 16 on.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) buffer Y { uint y[]; };
// The same buffers four words at a time (32-bit elements, contiguous, 16-byte aligned).
layout(std430, binding = 1) readonly buffer A4 { uvec4 a4[]; };
layout(std430, binding = 2) readonly buffer B4 { uvec4 b4[]; };
layout(std430, binding = 3) buffer Y4 { uvec4 y4[]; };

bool flag(uint f) { return (p[5] & f) != 0u; }

// Word pairs are little-endian: the low word first.
#if defined(WIDTH_F64)
#define T double
#define LOAD(buf, off, i) packDouble2x32(uvec2(buf[off + 2u * (i)], buf[off + 2u * (i) + 1u]))
#define SETTING(k) packDouble2x32(uvec2(p[6u + 2u * (k)], p[7u + 2u * (k)]))
#define STORE(i, v) { uvec2 w_ = unpackDouble2x32(v); y[p[4] + 2u * (i)] = w_.x; y[p[4] + 2u * (i) + 1u] = w_.y; }
#define IS_FLOAT 1
#elif defined(WIDTH_I64)
#define T uvec2
#define LOAD(buf, off, i) uvec2(buf[off + 2u * (i)], buf[off + 2u * (i) + 1u])
#define SETTING(k) uvec2(p[6u + 2u * (k)], p[7u + 2u * (k)])
#define STORE(i, v) { y[p[4] + 2u * (i)] = (v).x; y[p[4] + 2u * (i) + 1u] = (v).y; }
#define IS_FLOAT 0
#endif

#if defined(WIDTH_32)
#define FT float
#define F_ZERO 0.0
#define F_BITS(v) floatBitsToUint(v)
#define F_FROM(w) uintBitsToFloat(w)
#include "eltwise_float.glsl"
#define IT int
#define I_ZERO 0
#include "eltwise_int.glsl"
#elif IS_FLOAT
#define FT double
#define F_ZERO 0.0LF
#include "eltwise_float.glsl"
#else
// i64 (and u64's add, sub, mul: the same bits) as words, int64_ops.glsl's ops.
uvec2 int_op(uvec2 x, uvec2 z) {
  if (OP == OP_ADD) return i64_add(x, z);
  if (OP == OP_SUB) return i64_sub(x, z);
  if (OP == OP_MUL) return i64_mul(x, z);
  if (OP == OP_DIV) return i64_divide(I64_DIV, x, z, true, flag(HAS_MASK), SETTING(0));
  return i64_relu(x, SETTING(0), SETTING(1), SETTING(2), flag(HAS_LO), flag(HAS_HI));
}
#endif

// The element indices of a and b for output element i (strides are 0 on broadcast dims).
uvec2 locate(uint i) {
  // One dim left after collapsing (same shapes, or a scalar operand): no division per element,
  // which made these kernels compute-bound on large tensors.
  if (p[1] == 1u) return i * uvec2(p[17], p[18]);
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

void compute(uint i) {
#if defined(WIDTH_32)
  if (OP == OP_FILL) {
    if (DTYPE == DT_W64) {
      y[p[4] + 2u * i] = p[6];
      y[p[4] + 2u * i + 1u] = p[7];
    } else {
      y[p[4] + i] = p[6];
    }
    return;
  }
  uvec2 ab = locate(i);
  uint x = a[p[2] + ab.x];
  uint z = OP <= OP_DIV ? b[p[3] + ab.y] : 0u;
  y[p[4] + i] = DTYPE == DT_F32 ? float_op(F_FROM(x), F_FROM(z)) : int_op(int(x), int(z));
#else
  uvec2 ab = locate(i);
  T x = LOAD(a, p[2], ab.x);
  T z = OP <= OP_DIV ? LOAD(b, p[3], ab.y) : T(0u);
#if IS_FLOAT
  T r = float_op(x, z);
#else
  T r = int_op(x, z);
#endif
  STORE(i, r);
#endif
}

#if defined(WIDTH_32)
// Four elements of the vector path. The "_exact" variants' add, sub and mul take the hardware's
// four results unless one of them may be wrong (an operand subnormal, a result below 2^-126 or
// zero: the first test of exact_f32.glsl's helpers), and only then redo the quad with the
// helpers, out of line, so the usual case costs three integer tests an element.
uvec4 quad_op(uvec4 xs, uvec4 zs) {
  uvec4 r;
#if defined(EXACT_F32)
  if (DTYPE == DT_F32 && OP <= OP_MUL) {
    [[unroll]] for (uint k = 0u; k < 4u; ++k) {
      const float fx = uintBitsToFloat(xs[k]), fz = uintBitsToFloat(zs[k]);
      precise float v = OP == OP_ADD ? fx + fz : OP == OP_SUB ? fx - fz : fx * fz;
      r[k] = floatBitsToUint(v);
    }
    // (b & 0x7fffffff) - 1 < 0x7fffff: b is subnormal
    const uvec4 careful = uvec4(lessThan((xs & 0x7fffffffu) - 1u, uvec4(0x007fffffu))) |
                          uvec4(lessThan((zs & 0x7fffffffu) - 1u, uvec4(0x007fffffu))) |
                          uvec4(equal(r & 0x7f800000u, uvec4(0u)));
    if (any(notEqual(careful, uvec4(0u)))) {
      [[dont_unroll]] for (uint k = 0u; k < 4u; ++k)
        r[k] = float_op(uintBitsToFloat(xs[k]), uintBitsToFloat(zs[k]));
    }
    return r;
  }
#endif
  [[unroll]] for (uint k = 0u; k < 4u; ++k)
    r[k] = DTYPE == DT_F32 ? float_op(F_FROM(xs[k]), F_FROM(zs[k])) : int_op(int(xs[k]), int(zs[k]));
  return r;
}
#endif

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#if defined(WIDTH_32)
  // Contiguous operands (b contiguous or a scalar) at 16-byte aligned offsets: four elements an
  // iteration with vector loads and stores, so large tensors run at memory speed.
  if (OP != OP_FILL && DTYPE != DT_W64 && p[1] == 1u && p[17] == 1u && p[18] <= 1u &&
      ((p[2] | p[3] | p[4]) & 3u) == 0u) {
    const uint quads = p[0] / 4u;
    const uint ao = p[2] / 4u, bo = p[3] / 4u, yo = p[4] / 4u;
    const bool b_vector = p[18] == 1u;
    // A workgroup takes UNROLL * 256 consecutive quads a trip: every load instruction of the
    // workgroup reads 4 KiB in one piece.
    const uint block = gl_WorkGroupSize.x * UNROLL;
    for (uint base = gl_WorkGroupID.x * block + gl_LocalInvocationID.x; base < quads;
         base += gl_NumWorkGroups.x * block) {
      uvec4 x[UNROLL], z[UNROLL];
      [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
        const uint q = base + u * gl_WorkGroupSize.x;
        if (q < quads) {
          x[u] = a4[ao + q];
          z[u] = OP <= OP_DIV ? (b_vector ? b4[bo + q] : uvec4(b[p[3]])) : uvec4(0u);
        }
      }
      [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
        const uint q = base + u * gl_WorkGroupSize.x;
        if (q < quads) {
          y4[yo + q] = quad_op(x[u], z[u]);
        }
      }
    }
    for (uint i = quads * 4u + gl_GlobalInvocationID.x; i < p[0]; i += stride) compute(i);
    return;
  }
#endif
  for (uint i = gl_GlobalInvocationID.x; i < p[0]; i += stride) compute(i);
}
