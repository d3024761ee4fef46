// matmul of f16 inputs on tensor cores (GL_NV_cooperative_matrix; kernels/matmul_coop.cpp
// chooses it where the device has it): products of f16 values are exact in f32 and the tensor
// cores sum them in f32; each output is rounded once, to f16 (half_formats.glsl) or kept as f32
// (acc=f32). The summation order is the hardware's, so results are within the op rules' matmul
// bound rather than the CPU's bits.
//
// A workgroup of WG / 32 subgroups (of 32: the shape NVIDIA's tensor cores are exposed at; 8 by
// default, 4 give each subgroup twice the matrices) computes a BM x BN output tile, WM x WN subgroups each a (BM / WM) x (BN / WN) part of it as a grid of
// LM x LN cooperative matrices. K is walked in BK-deep slices: each invocation fetches its part
// of the next slice of a and b from global memory into registers while the subgroups multiply
// the current one out of shared memory (two buffers, one barrier a slice; rows padded by 8 halves
// against bank conflicts). DEPTH register sets keep that many slices' loads in flight: slice
// s + DEPTH is read while slice s is multiplied, so a load has DEPTH slices of products to
// arrive in (one slice of a 128 x 128 tile is too little work to hide a load from L2).
// Operands are read as 16-byte vectors where every row starts on 16 bytes (ALIGN_A, ALIGN_B),
// else one half at a time; what lies outside the matrices is staged as zeros. Results leave
// through a small per-subgroup staging area (in a_tile, after the last product), as word pairs of f16 where the output's rows start
// on a word (ALIGN_Y), else one half at a time with atomics on its own bits (the word is shared
// with another workgroup's output or with a neighbouring tensor).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#include "half_formats.glsl"

layout(constant_id = 0) const uint LM = 16;  // the cooperative matrix shape (DeviceCaps)
layout(constant_id = 1) const uint LN = 8;
layout(constant_id = 2) const uint LK = 16;
layout(constant_id = 3) const uint BM = 128;  // the workgroup's output tile
layout(constant_id = 4) const uint BN = 128;
layout(constant_id = 5) const uint BK = 32;
layout(constant_id = 6) const uint WM = 2;  // subgroups down the tile; WN = 8 / WM across
layout(constant_id = 7) const uint OUT_F32 = 0;
layout(constant_id = 8) const uint ALIGN_A = 0;
layout(constant_id = 9) const uint ALIGN_B = 0;
layout(constant_id = 10) const uint ALIGN_Y = 0;
layout(constant_id = 11) const uint DEPTH = 1;  // slices in flight in registers (1..4)
layout(constant_id = 12) const uint WG = 256;   // invocations: 32 a subgroup
// Workgroups in launch order take GROUP_M tile rows column by column (0: row by row), so the
// workgroups running at once share fewer rows of a and columns of b in the L2.
layout(constant_id = 13) const uint GROUP_M = 0;

const uint LANES = 32, SUBGROUPS = WG / LANES;
const uint WN = SUBGROUPS / WM;
layout(local_size_x_id = 12) in;

// p: output elements, M, K, N, the element offsets of a, b and y, batches, then from 8 on
// (a matrix, b matrix) per output batch (0 where a batch dim broadcasts): matmul_generic's.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer A4 { uvec4 a4[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 2) readonly buffer B4 { uvec4 b4[]; };
layout(std430, binding = 3) buffer Y { uint y[]; };

const uint PAD = 8;  // halves a shared row is padded by
const uint A_ROW = (BK + PAD) / 8, B_ROW = (BN + PAD) / 8;  // shared rows, in 16-byte vectors
// Two slices of each (one multiplied while the next is stored); after the last product a_tile
// also stages the results, LM x LN f32 a subgroup (kernels/matmul_coop.cpp checks it fits).
shared uvec4 a_tile[2 * BM * A_ROW];
shared uvec4 b_tile[2 * BK * B_ROW];

const uint A_VECS = BM * BK / 8 / WG, B_VECS = BK * BN / 8 / WG;  // vectors an invocation
const uint TILE_ROWS = BM / WM / LM, TILE_COLS = BN / WN / LN;     // matrices a subgroup

uint half_at(uint word, uint e) { return (word >> ((e & 1u) * 16u)) & 0xffffu; }

// Eight halves of `buf` from element e on, those at or past `end` (the row's end) as zeros.
#define GATHER8(buf, e, end)                                                        \
  uvec4 v = uvec4(0u);                                                              \
  [[unroll]] for (uint h = 0u; h < 8u; ++h) {                                       \
    const uint x = e + h < end ? half_at(buf[(e + h) >> 1u], e + h) : 0u;          \
    v[h >> 1u] |= x << ((h & 1u) * 16u);                                            \
  }

// Vector `slot` of a's BM x BK slice at (m0, k0): its row and 8-column group.
uvec4 fetch_a(uint slot, uint a0, uint m0, uint k0, uint M, uint K) {
  const uint r = slot / (BK / 8u), c = (slot % (BK / 8u)) * 8u;
  const uint row = m0 + r, k = k0 + c;
  if (row >= M || k >= K) return uvec4(0u);
  const uint e = a0 + row * K + k;
  if (ALIGN_A != 0u) return a4[e >> 3u];
  GATHER8(a, e, e - k + K)
  return v;
}

uvec4 fetch_b(uint slot, uint b0, uint n0, uint k0, uint K, uint N) {
  const uint r = slot / (BN / 8u), c = (slot % (BN / 8u)) * 8u;
  const uint k = k0 + r, col = n0 + c;
  if (k >= K || col >= N) return uvec4(0u);
  const uint e = b0 + k * N + col;
  if (ALIGN_B != 0u) return b4[e >> 3u];
  GATHER8(b, e, e - col + N)
  return v;
}

// Element e of this subgroup's staged LM x LN f32 results (from vector `base` of a_tile).
float staged(uint base, uint e) { return uintBitsToFloat(a_tile[base + e / 4u][e % 4u]); }

// Stores a fetched slice into buffer `which` of the shared tiles.
void store_slice(uint which, uvec4 next_a[A_VECS], uvec4 next_b[B_VECS]) {
  const uint t = gl_LocalInvocationID.x;
  [[unroll]] for (uint q = 0u; q < A_VECS; ++q) {
    const uint v = t + q * WG;
    a_tile[which * BM * A_ROW + (v / (BK / 8u)) * A_ROW + v % (BK / 8u)] = next_a[q];
  }
  [[unroll]] for (uint q = 0u; q < B_VECS; ++q) {
    const uint v = t + q * WG;
    b_tile[which * BK * B_ROW + (v / (BN / 8u)) * B_ROW + v % (BN / 8u)] = next_b[q];
  }
}

// One f16 output element on its own bits of a shared word.
void store_half(uint e, uint bits) {
  const uint shift = (e & 1u) * 16u;
  atomicAnd(y[e >> 1u], ~(0xffffu << shift));
  atomicOr(y[e >> 1u], bits << shift);
}

void main() {
  const uint M = p[1], K = p[2], N = p[3], batches = p[7];
  const uint t = gl_LocalInvocationID.x, sg = t / LANES, lane = t % LANES;
  const uint sm = sg / WN, sn = sg % WN;  // this subgroup's part of the tile
  uvec2 tile = gl_WorkGroupID.xy;  // (column, row) of the output tile
  if (GROUP_M > 1u) {
    const uint cols = gl_NumWorkGroups.x, rows = gl_NumWorkGroups.y;
    const uint id = gl_WorkGroupID.y * cols + gl_WorkGroupID.x, band = GROUP_M * cols;
    const uint first = (id / band) * GROUP_M, height = min(rows - first, GROUP_M);
    const uint in_band = id % band;
    tile = uvec2(in_band / height, first + in_band % height);
  }
  const uint m0 = tile.y * BM, n0 = tile.x * BN;
  for (uint batch = gl_WorkGroupID.z; batch < batches; batch += gl_NumWorkGroups.z) {
    const uint a0 = p[4] + p[8u + 2u * batch] * M * K, b0 = p[5] + p[9u + 2u * batch] * K * N;
    fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc[TILE_ROWS][TILE_COLS];
    [[unroll]] for (uint i = 0u; i < TILE_ROWS; ++i) {
      [[unroll]] for (uint j = 0u; j < TILE_COLS; ++j) {
        acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);
      }
    }
    // Register set u holds slice s while s % DEPTH == u, from its fetch until its store.
    uvec4 next_a[DEPTH][A_VECS], next_b[DEPTH][B_VECS];
    [[unroll]] for (uint u = 0u; u < DEPTH; ++u) {
      [[unroll]] for (uint q = 0u; q < A_VECS; ++q)
        next_a[u][q] = fetch_a(t + q * WG, a0, m0, u * BK, M, K);
      [[unroll]] for (uint q = 0u; q < B_VECS; ++q)
        next_b[u][q] = fetch_b(t + q * WG, b0, n0, u * BK, K, N);
    }
    barrier();  // the previous batch's staging in a_tile is read out
    store_slice(0u, next_a[0], next_b[0]);
    barrier();
    const uint slices = (K + BK - 1u) / BK;
    for (uint s0 = 0u; s0 < slices; s0 += DEPTH) {
      [[unroll]] for (uint u = 0u; u < DEPTH; ++u) {
        const uint s = s0 + u;
        if (s >= slices) break;  // the same for the whole workgroup
        if (s + DEPTH < slices) {  // set u's slice s is stored: it takes slice s + DEPTH
          const uint k_next = (s + DEPTH) * BK;
          [[unroll]] for (uint q = 0u; q < A_VECS; ++q)
            next_a[u][q] = fetch_a(t + q * WG, a0, m0, k_next, M, K);
          [[unroll]] for (uint q = 0u; q < B_VECS; ++q)
            next_b[u][q] = fetch_b(t + q * WG, b0, n0, k_next, K, N);
        }
        const uint cur = s & 1u;
        const uint a_base = cur * BM * A_ROW, b_base = cur * BK * B_ROW;
        [[unroll]] for (uint kk = 0u; kk < BK; kk += LK) {
          fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> ma[TILE_ROWS];
          [[unroll]] for (uint i = 0u; i < TILE_ROWS; ++i) {
            const uint row = (sm * TILE_ROWS + i) * LM;
            coopMatLoadNV(ma[i], a_tile, a_base + row * A_ROW + kk / 8u, A_ROW, false);
          }
          [[unroll]] for (uint j = 0u; j < TILE_COLS; ++j) {
            fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> mb;
            const uint col = (sn * TILE_COLS + j) * LN;
            coopMatLoadNV(mb, b_tile, b_base + kk * B_ROW + col / 8u, B_ROW, false);
            [[unroll]] for (uint i = 0u; i < TILE_ROWS; ++i) {
              acc[i][j] = coopMatMulAddNV(ma[i], mb, acc[i][j]);
            }
          }
        }
        // The other buffer was last read before the previous barrier: free to fill.
        const uint w = (u + 1u) % DEPTH;
        if (s + 1u < slices) store_slice(cur ^ 1u, next_a[w], next_b[w]);
        barrier();
      }
    }
    // Out through this subgroup's LM x LN staging area, one matrix at a time.
    const uint y0 = p[6] + batch * M * N, base = sg * LM * LN / 4u;  // in vectors of 4 f32
    [[unroll]] for (uint i = 0u; i < TILE_ROWS; ++i) {
      [[unroll]] for (uint j = 0u; j < TILE_COLS; ++j) {
        coopMatStoreNV(acc[i][j], a_tile, base, LN / 4u, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        const uint row0 = m0 + (sm * TILE_ROWS + i) * LM, col0 = n0 + (sn * TILE_COLS + j) * LN;
        if (OUT_F32 != 0u) {
          for (uint e = lane; e < LM * LN; e += LANES) {
            const uint row = row0 + e / LN, col = col0 + e % LN;
            if (row < M && col < N) y[y0 + row * N + col] = floatBitsToUint(staged(base, e));
          }
        } else if (ALIGN_Y != 0u) {  // even N and offset: word pairs of one row, never past N
          for (uint e = 2u * lane; e < LM * LN; e += 2u * LANES) {
            const uint row = row0 + e / LN, col = col0 + e % LN;
            if (row < M && col < N) {
              y[(y0 + row * N + col) >> 1u] = narrow_half(staged(base, e), false) |
                                               (narrow_half(staged(base, e + 1u), false) << 16u);
            }
          }
        } else {
          for (uint e = lane; e < LM * LN; e += LANES) {
            const uint row = row0 + e / LN, col = col0 + e % LN;
            if (row < M && col < N) {
              store_half(y0 + row * N + col, narrow_half(staged(base, e), false));
            }
          }
        }
        subgroupBarrier();  // the staging area is read out before the next matrix
      }
    }
  }
}
