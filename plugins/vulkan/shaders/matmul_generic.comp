// matmul for every dtype but the f32 fast path's (matmul_tiled.comp, matmul_gemv.comp): f8,
// f16, bf16 (widened exactly to f32, summed in f32 in k order with a rounded product and a
// rounded sum each step, rounded once to the output dtype: the CPU's order, so its bits), f64
// (-DF64: the same in f64), the integers of 1 to 64 bits (wrapping: the sum is taken modulo
// 2^32, or 2^64 as word pairs, and its low bits are the output's, so acc= widening is a sign or
// zero extension of the inputs), bool (or of ands) and bitset (as u8). The input and output
// dtypes are specialization constants; elements are read from word-addressed buffers by bit
// position, so no 8/16-bit storage or shaderInt64 is needed.
//
// A workgroup computes a TM x TN tile of outputs, one an invocation, staging BK-deep k slices
// of a and b through shared memory; each output still adds its terms one at a time in k order.
// Outputs narrower than a word are stored with atomics on their own bits (their word is shared
// with outputs of other invocations, or with a neighbouring tensor). With COPY = 1 the shader
// instead copies a dense result of the output dtype from binding 1 into the output, one output
// word an invocation: the second half of an in-place call, whose products were staged in a
// scratch buffer because the output overwrites an operand still being read.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#include "matmul_subnormals.glsl"
#if defined(F64)
#include "wide_floats.glsl"
#endif

// Values: ew_dtype_code / wide_dtype_code (kernels/ew_ops.hpp); bitset comes as u8. TM: the
// product tile's rows (kernels/matmul_generic.cpp: 4 for M <= 4, else 16); TN = WG / TM.
layout(constant_id = 0) const uint DT_IN = 0;
layout(constant_id = 1) const uint DT_OUT = 0;
layout(constant_id = 2) const uint COPY = 0;
layout(constant_id = 3) const uint TM = 16;
const uint WG = 256, TN = WG / TM, BK = 16;
layout(local_size_x = 256) in;

const uint DT_F32 = 0, DT_I32 = 1, DT_U32 = 2, DT_F16 = 3, DT_BF16 = 4, DT_I16 = 5, DT_U16 = 6,
           DT_I8 = 7, DT_U8 = 8, DT_BOOL = 9, DT_F64 = 10, DT_I64 = 11, DT_U64 = 12, DT_F8 = 13,
           DT_I4 = 14, DT_I2 = 15, DT_I1 = 16, DT_U4 = 17, DT_U2 = 18, DT_U1 = 19;

// p: output elements, M, K, N, the element offsets of a, b and y, batches, then from 8 on
// (a matrix, b matrix) per output batch (0 where a batch dim broadcasts). COPY reads only the
// count and y's offset.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
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

// The value an operand element is staged as (shared memory holds bits, so that moving values
// never flushes a subnormal): f32 bits for the floats, f64 bits, 0/1 for bool, and integers as
// 64-bit two's complement words.
uvec2 stage(uvec2 raw) {
#if defined(F64)
  return raw;
#else
  if (IN_FLOAT) return uvec2(floatBitsToUint(widen_float(raw.x, DT_IN)), 0u);
  if (DT_IN == DT_BOOL) return uvec2(raw.x != 0u ? 1u : 0u, 0u);
  return widen_int(raw);
#endif
}

// Output element e (of the output's buffer) from raw bits; packed and narrow elements share
// their word with neighbours computed by other invocations (or not ours): atomics on our bits.
void store(uint e, uvec2 v) {
  if (OUT_BITS == 64u) {
    y[2u * e] = v.x;
    y[2u * e + 1u] = v.y;
  } else if (OUT_BITS == 32u) {
    y[e] = v.x;
  } else {
    const uint per = 32u / OUT_BITS, shift = (e % per) * OUT_BITS;
    const uint m = ((1u << OUT_BITS) - 1u) << shift;
    atomicAnd(y[e / per], ~m);
    atomicOr(y[e / per], (v.x << shift) & m);
  }
}

// The product tile: TM x TN outputs a workgroup, one an invocation, k in BK-deep slices staged
// through shared memory; each output still sums its k in order, one term at a time.
shared uvec2 a_tile[TM * BK];
shared uvec2 b_tile[BK * TN];

void multiply() {
  const uint M = p[1], K = p[2], N = p[3], batches = p[7];
  const uint t = gl_LocalInvocationID.x, ti = t / TN, tj = t % TN;
  // Tiles past the grid's 65535 workgroups along M or N (kernels/matmul_generic.cpp) come round
  // again (uniform across the workgroup: every barrier below is reached by all invocations).
  const uint tiles_m = (M + TM - 1u) / TM, tiles_n = (N + TN - 1u) / TN;
  for (uint tile_m = gl_WorkGroupID.y; tile_m < tiles_m; tile_m += gl_NumWorkGroups.y)
  for (uint tile_n = gl_WorkGroupID.x; tile_n < tiles_n; tile_n += gl_NumWorkGroups.x)
  for (uint batch = gl_WorkGroupID.z; batch < batches; batch += gl_NumWorkGroups.z) {
    const uint m0 = tile_m * TM, n0 = tile_n * TN;
    const uint i = m0 + ti, j = n0 + tj;
    const uint a0 = p[4] + p[8u + 2u * batch] * M * K, b0 = p[5] + p[9u + 2u * batch] * K * N;
#if defined(F64)
    precise double acc64 = 0.0LF;
#else
    precise float accf = 0.0;  // no fma: a rounded product, then a rounded sum, as on the CPU
    uint acc32 = 0u;           // modulo 2^32: its low OUT_BITS are the wrapped sum
    uvec2 acc64 = uvec2(0u);   // modulo 2^64
    uint any = 0u;
#endif
    for (uint k0 = 0u; k0 < K; k0 += BK) {
      barrier();  // the previous slice is used up
      for (uint e = t; e < TM * BK; e += WG) {
        const uint r = m0 + e / BK, k = k0 + e % BK;
        a_tile[e] = r < M && k < K ? stage(LOAD_BITS(a, a0 + r * K + k, IN_BITS)) : uvec2(0u);
      }
      for (uint e = t; e < BK * TN; e += WG) {
        const uint k = k0 + e / TN, c = n0 + e % TN;
        b_tile[e] = k < K && c < N ? stage(LOAD_BITS(b, b0 + k * N + c, IN_BITS)) : uvec2(0u);
      }
      barrier();
      const uint kn = min(BK, K - k0);  // no padded terms: 0 * 0 would turn -0 into +0
      for (uint kk = 0u; kk < kn; ++kk) {
        const uvec2 x = a_tile[ti * BK + kk], z = b_tile[kk * TN + tj];
#if defined(F64)
        acc64 = acc64 + packDouble2x32(x) * packDouble2x32(z);
#else
        if (IN_FLOAT) {
#if SCALE_SUBNORMALS
          // a device that flushes: a subnormal bf16 operand keeps its value (f16 and f8 widen
          // to normal f32 values), as in the f32 path
          if (DT_IN == DT_BF16 && (is_subnormal(x.x) || is_subnormal(z.x))) {
            accf = accf + exact_product(x.x, z.x);
            continue;
          }
#endif
          accf = accf + uintBitsToFloat(x.x) * uintBitsToFloat(z.x);
        } else if (DT_IN == DT_BOOL) {
          any |= x.x & z.x;
        } else if (OUT_BITS == 64u) {
          acc64 = mul_add64(acc64, x, z);
        } else {
          acc32 += x.x * z.x;
        }
#endif
      }
    }
    if (i >= M || j >= N) continue;
    const uint e = p[6] + (batch * M + i) * N + j;
#if defined(F64)
    store(e, unpackDouble2x32(acc64));
#else
    if (IN_FLOAT) {
      store(e, uvec2(narrow_float(accf, DT_OUT), 0u));
    } else if (DT_IN == DT_BOOL) {
      store(e, uvec2(any, 0u));
    } else if (OUT_BITS == 64u) {
      store(e, acc64);
    } else {
      store(e, uvec2(OUT_BITS == 32u ? acc32 : acc32 & ((1u << OUT_BITS) - 1u), 0u));
    }
#endif
  }
}

// COPY: the staged result into the output, one output word an invocation.
void copy() {
  const uint first = p[6], count = p[0];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (OUT_BITS == 64u) {
    for (uint g = gl_GlobalInvocationID.x; g < count; g += stride) {
      y[2u * (first + g)] = a[2u * g];
      y[2u * (first + g) + 1u] = a[2u * g + 1u];
    }
    return;
  }
  const uint per = 32u / OUT_BITS, end = first + count;
  const uint w0 = first / per, words = (end + per - 1u) / per - w0;
  for (uint jw = gl_GlobalInvocationID.x; jw < words; jw += stride) {
    const uint w = w0 + jw;
    uint bits = 0u, keep = 0u;  // keep: the bits of elements that are not ours
    for (uint k = 0u; k < per; ++k) {
      const uint g = w * per + k, shift = k * OUT_BITS;
      const uint m = per == 1u ? 0xffffffffu : ((1u << OUT_BITS) - 1u) << shift;
      if (g >= first && g < end) {
        bits |= (LOAD_BITS(a, g - first, OUT_BITS).x << shift) & m;
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

void main() {
  if (COPY != 0u) {
    copy();
  } else {
    multiply();
  }
}
