// f32 matmul: 16x16 output tiles, the K dimension walked in 16-wide tiles staged through shared
// memory. Batches (grid z, strided) index broadcast matrices through a table in the params.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

// p: M, K, N, batches, a/b/y word offsets, then (a matrix, b matrix) per batch from 8 on.
layout(std430, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };

shared float tile_a[16][17];  // padded against bank conflicts
shared float tile_b[16][17];

void main() {
  const uint M = p[0], K = p[1], N = p[2];
  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
  const uint row = gl_WorkGroupID.y * 16u + ly, col = gl_WorkGroupID.x * 16u + lx;
  for (uint batch = gl_WorkGroupID.z; batch < p[3]; batch += gl_NumWorkGroups.z) {
    const uint a_base = p[4] + p[8u + 2u * batch] * M * K;
    const uint b_base = p[5] + p[9u + 2u * batch] * K * N;
    float acc = 0.0;
    for (uint k0 = 0u; k0 < K; k0 += 16u) {
      // Out-of-range entries are 0 in both tiles at once, so padding never meets an inf.
      tile_a[ly][lx] = (row < M && k0 + lx < K) ? a[a_base + row * K + k0 + lx] : 0.0;
      tile_b[ly][lx] = (k0 + ly < K && col < N) ? b[b_base + (k0 + ly) * N + col] : 0.0;
      barrier();
      for (uint k = 0u; k < 16u; ++k) acc += tile_a[ly][k] * tile_b[k][lx];
      barrier();
    }
    if (row < M && col < N) y[p[6] + (batch * M + row) * N + col] = acc;
  }
}
