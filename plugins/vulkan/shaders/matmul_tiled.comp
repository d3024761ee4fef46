// f32 matmul, register-blocked: a 64x64 output tile per workgroup of 16x16 invocations, each
// computing 4x4 outputs (rows ty + 16 i, columns tx + 16 j) from 16-deep K tiles staged through
// shared memory (A transposed, so both operands are read along rows). Batches (grid z, strided)
// index broadcast matrices through a table in the params.
//
// IEEE specials as matmul.comp: the k loop stops at K, so padding never meets an inf; without
// FLOAT_CONTROLS the device may flush subnormal operands (subnormal * inf = 0 * inf = NaN on
// NVIDIA), so such operands are staged scaled by 2^64 (exact, from their bits) and a K tile that
// holds one takes a slower loop that scales each product back.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

// p: M, K, N, batches, a/b/y word offsets, then (a matrix, b matrix) per batch from 8 on.
layout(std430, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };

const uint TM = 64, TN = 64, TK = 16;
shared float as[TK][TM + 4];  // as[k][m]
shared float bs[TK][TN + 4];

#if !defined(FLOAT_CONTROLS)
#define SCALE_SUBNORMALS 1
shared float sa[TK][TM + 4];  // 1, or 2^-64 where as[][] holds a subnormal scaled by 2^64
shared float sb[TK][TN + 4];
shared uint has_subnormal;

const float TWO_M64 = 5.42101086242752217e-20;  // 2^-64

float stage(uint bits, inout bool scaled) {
  if ((bits & 0x7f800000u) != 0u || (bits & 0x7fffffu) == 0u) return uintBitsToFloat(bits);
  scaled = true;  // frac * 2^-149 * 2^64: the int to float conversion and the scaling are exact
  return uintBitsToFloat((bits & 0x80000000u) | floatBitsToUint(float(bits & 0x7fffffu) *
                                                                uintBitsToFloat(0x15000000u)));
}
#endif

void main() {
  const uint M = p[0], K = p[1], N = p[2];
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = ty * 16u + tx;
  const uint m0 = gl_WorkGroupID.y * TM, n0 = gl_WorkGroupID.x * TN;
  // Staging: A as 64 rows x 16 k (row t / 4, k (t % 4) * 4 ..), B as 16 k x 64 columns.
  const uint a_row = t / 4u, a_k = (t % 4u) * 4u, b_k = t / 16u, b_col = (t % 16u) * 4u;
  for (uint batch = gl_WorkGroupID.z; batch < p[3]; batch += gl_NumWorkGroups.z) {
    const uint a_base = p[4] + p[8u + 2u * batch] * M * K;
    const uint b_base = p[5] + p[9u + 2u * batch] * K * N;
    float acc[4][4];
    for (uint i = 0u; i < 4u; ++i)
      for (uint j = 0u; j < 4u; ++j) acc[i][j] = 0.0;
    for (uint k0 = 0u; k0 < K; k0 += TK) {
#if SCALE_SUBNORMALS
      if (t == 0u) has_subnormal = 0u;
      barrier();
      bool scaled = false;
#endif
      for (uint q = 0u; q < 4u; ++q) {
        const uint row = m0 + a_row, k = k0 + a_k + q;
        const uint va = row < M && k < K ? a[a_base + row * K + k] : 0u;
        const uint kb = k0 + b_k, col = n0 + b_col + q;
        const uint vb = kb < K && col < N ? b[b_base + kb * N + col] : 0u;
#if SCALE_SUBNORMALS
        bool s1 = false, s2 = false;
        as[a_k + q][a_row] = stage(va, s1);
        bs[b_k][b_col + q] = stage(vb, s2);
        sa[a_k + q][a_row] = s1 ? TWO_M64 : 1.0;
        sb[b_k][b_col + q] = s2 ? TWO_M64 : 1.0;
        scaled = scaled || s1 || s2;
#else
        as[a_k + q][a_row] = uintBitsToFloat(va);
        bs[b_k][b_col + q] = uintBitsToFloat(vb);
#endif
      }
#if SCALE_SUBNORMALS
      if (scaled) has_subnormal = 1u;
#endif
      barrier();
      const uint kn = min(TK, K - k0);  // the rest of the tile is padding: never multiplied
#if SCALE_SUBNORMALS
      if (has_subnormal != 0u) {
        for (uint k = 0u; k < kn; ++k) {
          for (uint i = 0u; i < 4u; ++i) {
            for (uint j = 0u; j < 4u; ++j) {
              precise float prod = as[k][ty + 16u * i] * bs[k][tx + 16u * j];
              prod = prod * sa[k][ty + 16u * i];
              prod = prod * sb[k][tx + 16u * j];
              acc[i][j] += prod;
            }
          }
        }
      } else
#endif
      {
        for (uint k = 0u; k < kn; ++k) {
          float av[4], bv[4];
          for (uint i = 0u; i < 4u; ++i) av[i] = as[k][ty + 16u * i];
          for (uint j = 0u; j < 4u; ++j) bv[j] = bs[k][tx + 16u * j];
          for (uint i = 0u; i < 4u; ++i)
            for (uint j = 0u; j < 4u; ++j) acc[i][j] += av[i] * bv[j];
        }
      }
      barrier();
    }
    for (uint i = 0u; i < 4u; ++i) {
      const uint row = m0 + ty + 16u * i;
      if (row >= M) continue;
      for (uint j = 0u; j < 4u; ++j) {
        const uint col = n0 + tx + 16u * j;
        if (col < N) y[p[6] + (batch * M + row) * N + col] = acc[i][j];
      }
    }
  }
}
