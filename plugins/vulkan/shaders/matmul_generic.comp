// matmul for every dtype but the f32 fast path's (matmul_tiled.comp, matmul_gemv.comp): f8,
// f16, bf16 (widened exactly to f32, summed in f32 in k order with a rounded product and a
// rounded sum each step, rounded once to the output dtype: the CPU's order, so its bits), f64
// (-DF64: the same in f64), the integers of 1 to 64 bits (wrapping: the sum is taken modulo
// 2^32, or 2^64 as word pairs, and its low bits are the output's, so acc= widening is a sign or
// zero extension of the inputs), bool (or of ands) and bitset (as u8). The input and output
// dtypes are specialization constants; elements are read from word-addressed buffers by bit
// position, so no 8/16-bit storage or shaderInt64 is needed.
//
// One invocation writes one output word (the elements packed in it, or one 8-byte element); a
// word the output shares with a neighbour at either end is updated with atomics, leaving the
// neighbour's bits alone. With COPY = 1 the shader instead copies a dense result of the output
// dtype from binding 1 into the output: the second half of an in-place call, whose products were
// staged in a scratch buffer because the output overwrites an operand still being read.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#if defined(F64)
#include "wide_floats.glsl"
#endif

layout(local_size_x = 64) in;

// Values: ew_dtype_code / wide_dtype_code (kernels/ew_ops.hpp); bitset comes as u8.
layout(constant_id = 0) const uint DT_IN = 0;
layout(constant_id = 1) const uint DT_OUT = 0;
layout(constant_id = 2) const uint COPY = 0;

const uint DT_F32 = 0, DT_I32 = 1, DT_U32 = 2, DT_F16 = 3, DT_BF16 = 4, DT_I16 = 5, DT_U16 = 6,
           DT_I8 = 7, DT_U8 = 8, DT_BOOL = 9, DT_F64 = 10, DT_I64 = 11, DT_U64 = 12, DT_F8 = 13,
           DT_I4 = 14, DT_I2 = 15, DT_I1 = 16, DT_U4 = 17, DT_U2 = 18, DT_U1 = 19;

// p: output elements, M, K, N, and the element offsets of a, b and y, then from 8 on
// (a matrix, b matrix) per output batch (0 where a batch dim broadcasts).
layout(std430, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) buffer Y { uint y[]; };

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
const bool IN_FLOAT = DT_IN == DT_F32 || DT_IN == DT_F16 || DT_IN == DT_BF16 || DT_IN == DT_F8;
const bool IN_SIGNED = DT_IN == DT_I32 || DT_IN == DT_I16 || DT_IN == DT_I8 || DT_IN == DT_I4 ||
                       DT_IN == DT_I2 || DT_IN == DT_I1 || DT_IN == DT_I64;

// Element k of a buffer of `bits`-sized elements as (low, high) words, zero-extended.
#define LOAD_BITS(buf, k, bits)                                                              \
  ((bits) == 64u   ? uvec2(buf[2u * (k)], buf[2u * (k) + 1u])                                \
   : (bits) == 32u ? uvec2(buf[k], 0u)                                                       \
                   : uvec2((buf[(k) / (32u / (bits))] >> (((k) % (32u / (bits))) * (bits))) & \
                               ((1u << (bits)) - 1u),                                        \
                           0u))

// An input integer as 64-bit two's complement words: sign-extended for the signed dtypes.
uvec2 widen_int(uvec2 raw) {
  if (!IN_SIGNED || IN_BITS == 64u) return raw;
  const int v = IN_BITS == 32u ? int(raw.x) : int(raw.x << (32u - IN_BITS)) >> (32u - IN_BITS);
  return uvec2(uint(v), v < 0 ? 0xffffffffu : 0u);
}

// acc + x * z modulo 2^64, on (low, high) words.
uvec2 mul_add64(uvec2 acc, uvec2 x, uvec2 z) {
  uint hi, lo;
  umulExtended(x.x, z.x, hi, lo);
  hi += x.x * z.y + x.y * z.x;
  uint carry;
  const uint sum = uaddCarry(acc.x, lo, carry);
  return uvec2(sum, acc.y + hi + carry);
}

// Output element g (counted from the output's first) as raw bits, (low, high).
uvec2 compute(uint g) {
  const uint M = p[1], K = p[2], N = p[3];
  const uint mn = M * N, batch = g / mn, r = g - batch * mn, i = r / N, j = r - i * N;
  uint ka = p[4] + (p[8u + 2u * batch] * M + i) * K;  // a[i, 0]
  uint kb = p[5] + p[9u + 2u * batch] * K * N + j;     // b[0, j]
#if defined(F64)
  precise double acc64 = 0.0LF;
  for (uint k = 0u; k < K; ++k, ++ka, kb += N) {
    acc64 = acc64 + LOAD_F64(a, ka) * LOAD_F64(b, kb);
  }
  return unpackDouble2x32(acc64);
#else
  if (IN_FLOAT) {
    precise float acc = 0.0;  // no fma: a rounded product, then a rounded sum, as on the CPU
    for (uint k = 0u; k < K; ++k, ++ka, kb += N) {
      acc = acc + widen_float(LOAD_BITS(a, ka, IN_BITS).x, DT_IN) *
                      widen_float(LOAD_BITS(b, kb, IN_BITS).x, DT_IN);
    }
    return uvec2(narrow_float(acc, DT_OUT), 0u);
  }
  if (DT_IN == DT_BOOL) {
    uint any = 0u;
    for (uint k = 0u; k < K && any == 0u; ++k, ++ka, kb += N) {
      any = LOAD_BITS(a, ka, 8u).x != 0u && LOAD_BITS(b, kb, 8u).x != 0u ? 1u : 0u;
    }
    return uvec2(any, 0u);
  }
  if (OUT_BITS == 64u) {
    uvec2 acc = uvec2(0u);
    for (uint k = 0u; k < K; ++k, ++ka, kb += N) {
      acc = mul_add64(acc, widen_int(LOAD_BITS(a, ka, IN_BITS)),
                      widen_int(LOAD_BITS(b, kb, IN_BITS)));
    }
    return acc;
  }
  uint acc = 0u;  // modulo 2^32: its low OUT_BITS are the wrapped sum
  for (uint k = 0u; k < K; ++k, ++ka, kb += N) {
    acc += widen_int(LOAD_BITS(a, ka, IN_BITS)).x * widen_int(LOAD_BITS(b, kb, IN_BITS)).x;
  }
  return uvec2(OUT_BITS == 32u ? acc : acc & ((1u << OUT_BITS) - 1u), 0u);
#endif
}

uvec2 element(uint g) {
  if (COPY != 0u) return LOAD_BITS(a, g, OUT_BITS);
  return compute(g);
}

void main() {
  const uint first = p[6], end = p[6] + p[0];  // output elements [first, end)
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (OUT_BITS == 64u) {
    for (uint g = gl_GlobalInvocationID.x; g < p[0]; g += stride) {
      const uvec2 v = element(g);
      y[2u * (first + g)] = v.x;
      y[2u * (first + g) + 1u] = v.y;
    }
    return;
  }
  const uint per = 32u / OUT_BITS;
  const uint w0 = first / per, words = (end + per - 1u) / per - w0;
  for (uint jw = gl_GlobalInvocationID.x; jw < words; jw += stride) {
    const uint w = w0 + jw;
    uint bits = 0u, keep = 0u;  // keep: the bits of elements that are not ours
    for (uint k = 0u; k < per; ++k) {
      const uint g = w * per + k, shift = k * OUT_BITS;
      const uint m = per == 1u ? 0xffffffffu : ((1u << OUT_BITS) - 1u) << shift;
      if (g >= first && g < end) {
        bits |= (element(g - first).x << shift) & m;
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
