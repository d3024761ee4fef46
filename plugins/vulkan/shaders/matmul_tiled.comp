// f32 matmul, register-blocked: a BM x BN output tile per workgroup of (BM/TM)*(BN/TN)
// invocations, each computing TM x TN outputs from BK-deep K slices staged through shared memory.
// The tile sizes are specialization constants (kernels/matmul.cpp picks them per shape).
//
// Layout: invocation (tx, ty) owns rows (i * TY + ty) * 4 + 0..3 for i < TM/4 and columns
// (j * TX + tx) * 4 + 0..3 for j < TN/4, so each k step reads TM/4 + TN/4 vec4s from shared
// memory for TM * TN products. A is stored transposed (k-major, one vec4 of padding a row, so
// the transposing stores hit distinct banks); B as it comes. The shared tiles are double
// buffered: the next slice is read from memory into registers while the current one is
// multiplied, then stored, with one barrier a slice. Global reads are coalesced (consecutive
// invocations read consecutive k of A and n of B): scalar, so any element offset works, or with
// VEC4 (the host sets it where K, N and the operands' word offsets are multiples of 4) 16 bytes
// a load: a quarter of the load instructions and their index arithmetic. VEC4_OUT (the host sets
// it where N and the output's word offset are multiples of 4) stores the results 16 bytes at once.
//
// Edges: rows, columns and k past M, N, K are staged as 0; padded k pairs a 0 of A with a 0 of
// B, so padding never meets an inf; padded rows and columns are never stored. Batches (grid z,
// strided) index broadcast matrices through the table in the params.
//
// Without FLOAT_CONTROLS the device may flush subnormal operands: each slice records whether it
// staged one, and such a slice (rare) takes a slower loop of exact products
// (matmul_subnormals.glsl). That bookkeeping costs the common case too, so on such devices
// kernels/matmul.cpp runs two passes: -DPASS_FAST (built without the bookkeeping) always
// computes, while matmul_scan.comp runs alongside it and sets flag[0] where an operand holds a
// subnormal; then -DPASS_CAREFUL (with the bookkeeping) returns at once when the flag is clear,
// else computes every output again, over the fast pass's.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "float_controls.glsl"
#include "matmul_subnormals.glsl"

layout(constant_id = 0) const uint BM = 128;
layout(constant_id = 1) const uint BN = 128;
layout(constant_id = 2) const uint BK = 8;
layout(constant_id = 3) const uint TM = 8;   // a multiple of 4
layout(constant_id = 4) const uint TN = 8;   // a multiple of 4
layout(constant_id = 5) const uint WG = 256;  // (BM / TM) * (BN / TN)
// 16-byte global loads (the slices' quads split evenly over the invocations: the host checks).
layout(constant_id = 6) const bool VEC4 = false;
layout(constant_id = 7) const bool VEC4_OUT = false;  // 16-byte stores (the host checks N, offset)
layout(local_size_x_id = 5) in;

// p: M, K, N, batches, a/b/y word offsets, then (a matrix, b matrix) per batch from 8 on.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 1) readonly buffer A4 { uvec4 a4[]; };  // the same, by quads
layout(std430, binding = 2) readonly buffer B4 { uvec4 b4[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(std430, binding = 3) writeonly buffer Y4 { vec4 y4[]; };  // the same, by quads
#if defined(PASS_CAREFUL)
layout(std430, binding = 4) restrict readonly buffer Flag { uint flag[]; };
#endif

const uint TX = BN / TN, TY = BM / TM;
const uint AS4 = BM / 4 + 1;  // the stride of a k row of A in shared memory, in vec4s
const uint BS4 = BN / 4;
const uint LA = BM * BK / WG, LB = BN * BK / WG;  // elements each invocation stages per slice
const uint KQ = BK / 4, NQ = BN / 4;                // quads a row of a slice of A, of B
const uint LA4 = (LA + 3u) / 4u, LB4 = (LB + 3u) / 4u;  // quads each stages (with VEC4)
shared uvec4 as4[2 * BK * AS4];  // bits: moving them through shared memory never flushes
shared uvec4 bs4[2 * BK * BS4];
#if SCALE_SUBNORMALS
shared uint slice_with_subnormal[2];  // per buffer: the number of the last such slice staged
#endif

void main() {
#if defined(PASS_CAREFUL)
  if (flag[0] == 0u) return;  // the same for the whole dispatch: no barrier is skipped unevenly
#endif
  const uint M = p[0], K = p[1], N = p[2];
  const uint t = gl_LocalInvocationIndex, tx = t % TX, ty = t / TX;
  const uint slices = (K + BK - 1u) / BK;
#if SCALE_SUBNORMALS
  uint slice_number = 0u;  // counts slices over batches: no flag needs clearing
  if (t == 0u) {
    slice_with_subnormal[0] = 0xffffffffu;
    slice_with_subnormal[1] = 0xffffffffu;
  }
  barrier();
#endif
  // Tiles past the grid's 65535 workgroups along M or N (kernels/matmul.cpp) come round again
  // (uniform across the workgroup: every barrier below is reached by all invocations).
  const uint tiles_m = (M + BM - 1u) / BM, tiles_n = (N + BN - 1u) / BN;
  for (uint tile_m = gl_WorkGroupID.y; tile_m < tiles_m; tile_m += gl_NumWorkGroups.y)
  for (uint tile_n = gl_WorkGroupID.x; tile_n < tiles_n; tile_n += gl_NumWorkGroups.x)
  for (uint batch = gl_WorkGroupID.z; batch < p[3]; batch += gl_NumWorkGroups.z) {
    const uint m0 = tile_m * BM, n0 = tile_n * BN;
    const uint a_base = p[4] + p[8u + 2u * batch] * M * K;
    const uint b_base = p[5] + p[9u + 2u * batch] * K * N;
    uint ra[LA], rb[LB];
    uvec4 ra4[LA4], rb4[LB4];
    vec4 acc[TM][TN / 4];
    [[unroll]] for (uint i = 0u; i < TM; ++i)
      [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) acc[i][j] = vec4(0.0);

    for (uint s = 0u; s <= slices; ++s) {
      const uint cur = (s + 1u) & 1u;  // slice s - 1 is in buffer cur, slice s goes to cur ^ 1
      // Read slice s (if any) into registers.
      if (VEC4 && s < slices) {
        const uint k0 = s * BK;
        [[unroll]] for (uint r = 0u; r < LA4; ++r) {
          const uint e = r * WG + t, row = m0 + e / KQ, k = k0 + e % KQ * 4u;
          ra4[r] = row < M && k < K ? a4[(a_base + row * K + k) / 4u] : uvec4(0u);
        }
        [[unroll]] for (uint r = 0u; r < LB4; ++r) {
          const uint e = r * WG + t, k = k0 + e / NQ, col = n0 + e % NQ * 4u;
          rb4[r] = k < K && col < N ? b4[(b_base + k * N + col) / 4u] : uvec4(0u);
        }
      } else if (s < slices) {
        const uint k0 = s * BK;
        [[unroll]] for (uint r = 0u; r < LA; ++r) {
          const uint e = r * WG + t, row = m0 + e / BK, k = k0 + e % BK;
          ra[r] = row < M && k < K ? a[a_base + row * K + k] : 0u;
        }
        [[unroll]] for (uint r = 0u; r < LB; ++r) {
          const uint e = r * WG + t, k = k0 + e / BN, col = n0 + e % BN;
          rb[r] = k < K && col < N ? b[b_base + k * N + col] : 0u;
        }
      }
      // Multiply slice s - 1.
      if (s > 0u) {
        const uint a_at = cur * BK * AS4, b_at = cur * BK * BS4;
#if SCALE_SUBNORMALS
        if (slice_with_subnormal[cur] == slice_number - 1u) {
          for (uint k = 0u; k < BK; ++k) {
            [[unroll]] for (uint i = 0u; i < TM / 4u; ++i) {
              const uvec4 av = as4[a_at + k * AS4 + i * TY + ty];
              [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) {
                const uvec4 bv = bs4[b_at + k * BS4 + j * TX + tx];
                [[unroll]] for (uint ii = 0u; ii < 4u; ++ii)
                  [[unroll]] for (uint jj = 0u; jj < 4u; ++jj)
                    acc[4u * i + ii][j][jj] += exact_product(av[ii], bv[jj]);
              }
            }
          }
        } else
#endif
        {
          [[unroll]] for (uint k = 0u; k < BK; ++k) {
            vec4 av[TM / 4], bv[TN / 4];
            [[unroll]] for (uint i = 0u; i < TM / 4u; ++i)
              av[i] = uintBitsToFloat(as4[a_at + k * AS4 + i * TY + ty]);
            [[unroll]] for (uint j = 0u; j < TN / 4u; ++j)
              bv[j] = uintBitsToFloat(bs4[b_at + k * BS4 + j * TX + tx]);
            [[unroll]] for (uint i = 0u; i < TM / 4u; ++i)
              [[unroll]] for (uint ii = 0u; ii < 4u; ++ii)
                [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) acc[4u * i + ii][j] += av[i][ii] * bv[j];
          }
        }
      }
      // Store slice s into the other buffer: everyone finished reading it a barrier ago.
      if (s < slices) {
        const uint nxt = cur ^ 1u, a_at = nxt * BK * AS4, b_at = nxt * BK * BS4;
#if SCALE_SUBNORMALS
        bool subnormal = false;
#endif
        if (VEC4) {
          [[unroll]] for (uint r = 0u; r < LA4; ++r) {
            const uint e = r * WG + t, m = e / KQ, k = e % KQ * 4u;
            [[unroll]] for (uint c = 0u; c < 4u; ++c) {
              as4[a_at + (k + c) * AS4 + m / 4u][m % 4u] = ra4[r][c];
#if SCALE_SUBNORMALS
              subnormal = subnormal || is_subnormal(ra4[r][c]);
#endif
            }
          }
          [[unroll]] for (uint r = 0u; r < LB4; ++r) {
            const uint e = r * WG + t;
            bs4[b_at + (e / NQ) * BS4 + e % NQ] = rb4[r];
#if SCALE_SUBNORMALS
            [[unroll]] for (uint c = 0u; c < 4u; ++c)
              subnormal = subnormal || is_subnormal(rb4[r][c]);
#endif
          }
        } else {
          [[unroll]] for (uint r = 0u; r < LA; ++r) {
            const uint e = r * WG + t, m = e / BK;
            as4[a_at + (e % BK) * AS4 + m / 4u][m % 4u] = ra[r];
#if SCALE_SUBNORMALS
            subnormal = subnormal || is_subnormal(ra[r]);
#endif
          }
          [[unroll]] for (uint r = 0u; r < LB; ++r) {
            const uint e = r * WG + t, n = e % BN;
            bs4[b_at + (e / BN) * BS4 + n / 4u][n % 4u] = rb[r];
#if SCALE_SUBNORMALS
            subnormal = subnormal || is_subnormal(rb[r]);
#endif
          }
        }
#if SCALE_SUBNORMALS
        if (subnormal) slice_with_subnormal[nxt] = slice_number;
        ++slice_number;
#endif
      }
      barrier();
    }

    [[unroll]] for (uint i = 0u; i < TM / 4u; ++i) {
      [[unroll]] for (uint ii = 0u; ii < 4u; ++ii) {
        const uint row = m0 + (i * TY + ty) * 4u + ii;
        if (row >= M) continue;
        const uint y_row = p[6] + (batch * M + row) * N;
        [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) {
          if (VEC4_OUT) {  // col is a multiple of 4, and so is N: the quad is inside the row
            const uint col = n0 + (j * TX + tx) * 4u;
            if (col < N) y4[(y_row + col) / 4u] = acc[4u * i + ii][j];
            continue;
          }
          [[unroll]] for (uint jj = 0u; jj < 4u; ++jj) {
            const uint col = n0 + (j * TX + tx) * 4u + jj;
            if (col < N) y[y_row + col] = acc[4u * i + ii][j][jj];
          }
        }
      }
    }
  }
}
