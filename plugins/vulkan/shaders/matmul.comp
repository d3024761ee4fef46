// f32 matmul: 16x16 output tiles, the K dimension walked in 16-wide tiles staged through shared
// memory. Batches (grid z, strided) index broadcast matrices through a table in the params.
//
// IEEE specials: a product only ever pairs two real operands (the k loop stops at K, so padding
// never meets an inf). Without FLOAT_CONTROLS the device may flush subnormal operands, which
// makes subnormal * inf = 0 * inf = NaN (NVIDIA): such operands are staged scaled by 2^64 (exact,
// from their bits) and, for a tile that holds one, each product is scaled back by 2^-64 per
// scaled operand, so subnormal * inf stays inf and subnormal * finite keeps its value (a
// subnormal product may still flush, as ops.md allows on such a device).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

// p: M, K, N, batches, a/b/y word offsets, then (a matrix, b matrix) per batch from 8 on.
layout(std430, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };

shared float tile_a[16][17];  // padded against bank conflicts
shared float tile_b[16][17];

#if !defined(FLOAT_CONTROLS)
#define SCALE_SUBNORMALS 1
shared float scale_a[16][17];  // 1, or 2^-64 where tile_a holds a subnormal scaled by 2^64
shared float scale_b[16][17];
shared uint has_subnormal[2];  // per k tile, alternating: any scaled operand in the tiles

const float TWO_M64 = 5.42101086242752217e-20;  // 2^-64

// The value of the f32 with these bits; a subnormal comes scaled by 2^64 (and `scaled` is set).
float stage(uint bits, inout bool scaled) {
  if ((bits & 0x7f800000u) != 0u || (bits & 0x7fffffu) == 0u) return uintBitsToFloat(bits);
  scaled = true;  // frac * 2^-149 * 2^64: the int to float conversion and the scaling are exact
  return uintBitsToFloat((bits & 0x80000000u) | floatBitsToUint(float(bits & 0x7fffffu) *
                                                                uintBitsToFloat(0x15000000u)));
}
#endif

void main() {
  const uint M = p[0], K = p[1], N = p[2];
  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
  const uint row = gl_WorkGroupID.y * 16u + ly, col = gl_WorkGroupID.x * 16u + lx;
#if SCALE_SUBNORMALS
  if (lx == 0u && ly == 0u) has_subnormal[0] = 0u;
  barrier();
  uint parity = 0u;
#endif
  for (uint batch = gl_WorkGroupID.z; batch < p[3]; batch += gl_NumWorkGroups.z) {
    const uint a_base = p[4] + p[8u + 2u * batch] * M * K;
    const uint b_base = p[5] + p[9u + 2u * batch] * K * N;
    float acc = 0.0;
    for (uint k0 = 0u; k0 < K; k0 += 16u) {
      const uint ta = (row < M && k0 + lx < K) ? a[a_base + row * K + k0 + lx] : 0u;
      const uint tb = (k0 + ly < K && col < N) ? b[b_base + (k0 + ly) * N + col] : 0u;
#if SCALE_SUBNORMALS
      bool sa = false, sb = false;
      tile_a[ly][lx] = stage(ta, sa);
      tile_b[ly][lx] = stage(tb, sb);
      scale_a[ly][lx] = sa ? TWO_M64 : 1.0;
      scale_b[ly][lx] = sb ? TWO_M64 : 1.0;
      // The other flag was last read before the previous tile's closing barrier.
      if (lx == 0u && ly == 0u) has_subnormal[parity ^ 1u] = 0u;
      if (sa || sb) has_subnormal[parity] = 1u;
#else
      tile_a[ly][lx] = uintBitsToFloat(ta);
      tile_b[ly][lx] = uintBitsToFloat(tb);
#endif
      barrier();
      const uint kn = min(16u, K - k0);  // the rest of the tile is padding: never multiplied
#if SCALE_SUBNORMALS
      if (has_subnormal[parity] != 0u) {
        for (uint k = 0u; k < kn; ++k) {
          precise float prod = tile_a[ly][k] * tile_b[k][lx];
          prod = prod * scale_a[ly][k];
          prod = prod * scale_b[k][lx];
          acc += prod;
        }
      } else
#endif
      if (kn == 16u) {
        for (uint k = 0u; k < 16u; ++k) acc += tile_a[ly][k] * tile_b[k][lx];
      } else {
        for (uint k = 0u; k < kn; ++k) acc += tile_a[ly][k] * tile_b[k][lx];
      }
      barrier();
#if SCALE_SUBNORMALS
      parity ^= 1u;
#endif
    }
    if (row < M && col < N) y[p[6] + (batch * M + row) * N + col] = acc;
  }
}
