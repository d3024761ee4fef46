// f32 matmul for few rows (M <= ROWS, decoder inference: [.., M, K] x [.., K, N]): reading B is
// the whole cost, so each workgroup takes COLS columns and all rows, its WG invocations split as
// COLS columns x LANES k lanes. Consecutive invocations read consecutive columns of a B row
// (coalesced; 8 columns already fill a 32-byte sector); lane l sums k = l, l + LANES, ...
// UNROLL rows at a time (UNROLL reads in flight), and
// the lanes' partial sums meet in shared memory (a tree, LANES a power of two). The rows of A
// are read by all columns at once (one broadcast read). Batches (grid z, strided) index
// broadcast matrices through the table in the params, as matmul_tiled.comp.
//
// Without FLOAT_CONTROLS the device may flush subnormal operands: a product with one is formed
// exactly (matmul_subnormals.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "float_controls.glsl"
#include "matmul_subnormals.glsl"

layout(constant_id = 0) const uint COLS = 32;
layout(constant_id = 1) const uint WG = 256;
layout(constant_id = 2) const uint ROWS = 1;
layout(constant_id = 3) const uint UNROLL = 8;
layout(local_size_x_id = 1) in;

// p: M, K, N, batches, a/b/y word offsets, then (a matrix, b matrix) per batch from 8 on.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };

const uint LANES = WG / COLS;
shared float partial[ROWS * WG];

float product(uint x, uint w) {
#if SCALE_SUBNORMALS
  if (is_subnormal(x) || is_subnormal(w)) return exact_product(x, w);
#endif
  return uintBitsToFloat(x) * uintBitsToFloat(w);
}

void main() {
  const uint M = p[0], K = p[1], N = p[2];
  const uint t = gl_LocalInvocationIndex, lane = t / COLS;
  // Column slices past the grid's 65535 workgroups (kernels/matmul.cpp) come round again
  // (uniform across the workgroup: every barrier below is reached by all invocations).
  const uint slices = (N + COLS - 1u) / COLS;
  for (uint slice = gl_WorkGroupID.x; slice < slices; slice += gl_NumWorkGroups.x)
  for (uint batch = gl_WorkGroupID.z; batch < p[3]; batch += gl_NumWorkGroups.z) {
    const uint col = slice * COLS + t % COLS;
    const uint a_base = p[4] + p[8u + 2u * batch] * M * K;
    const uint b_base = p[5] + p[9u + 2u * batch] * K * N + col;
    uint a_row[ROWS];  // rows past M repeat the last one: read, never stored
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) a_row[r] = a_base + min(r, M - 1u) * K;
    float acc[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) acc[r] = 0.0;
    if (col < N) {
      uint k = lane;
      for (; k + (UNROLL - 1u) * LANES < K; k += UNROLL * LANES) {
        uint w[UNROLL];
        [[unroll]] for (uint q = 0u; q < UNROLL; ++q) w[q] = b[b_base + (k + q * LANES) * N];
        [[unroll]] for (uint q = 0u; q < UNROLL; ++q)
          [[unroll]] for (uint r = 0u; r < ROWS; ++r)
            acc[r] += product(a[a_row[r] + k + q * LANES], w[q]);
      }
      for (; k < K; k += LANES) {
        const uint w = b[b_base + k * N];
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) acc[r] += product(a[a_row[r] + k], w);
      }
    }
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) partial[r * WG + t] = acc[r];
    barrier();
    for (uint half_lanes = LANES / 2u; half_lanes > 0u; half_lanes /= 2u) {
      if (lane < half_lanes) {
        [[unroll]] for (uint r = 0u; r < ROWS; ++r)
          partial[r * WG + t] += partial[r * WG + t + half_lanes * COLS];
      }
      barrier();
    }
    if (lane == 0u && col < N) {
      [[unroll]] for (uint r = 0u; r < ROWS; ++r)
        if (r < M) y[p[6] + (batch * M + r) * N + col] = partial[r * WG + t];
    }
    barrier();  // the next batch reuses partial[]
  }
}
