// matmul of f16 inputs on tensor cores (GL_NV_cooperative_matrix; kernels/matmul_coop.cpp
// chooses it where the device has it): products of f16 values are exact in f32 and the tensor
// cores sum them in f32; each output is rounded once, to f16 (half_formats.glsl) or kept as f32
// (acc=f32). The summation order is the hardware's, so results are within the op rules' matmul
// bound rather than the CPU's bits.
//
// A workgroup of WG / 32 subgroups (of 32: the shape NVIDIA's tensor cores are exposed at)
// computes a BM x BN output tile: WM x WN multiplying subgroups each a (BM / WM) x (BN / WN) part
// of it as a grid of LM x LN cooperative matrices. K is walked in BK-deep slices staged in shared
// memory (rows padded by 8 halves against bank conflicts), in one of two ways:
// - Without loaders (LOADER_GROUPS 0), every invocation fetches its part of the next slice of a
//   and b from global memory into registers while the subgroups multiply the current one out of
//   shared memory, then stores it (STAGES 2: into the other buffer, one barrier a slice; 1: two
//   barriers). DEPTH register sets keep that many slices' loads in flight.
// - With loaders, subgroups after the multiplying ones only copy slices into a ring of STAGES
//   buffers and the multiplying ones only multiply; they meet through counters in shared memory
//   (below), so several slices are in flight and no workgroup barrier stops the tensor cores.
// Operands are read as 16-byte vectors where every row starts on 16 bytes (ALIGN_A, ALIGN_B),
// else one half at a time; what lies outside the matrices is staged as zeros. Results leave
// through a small per-subgroup staging area (in a_tile, after the last product), as word pairs
// of f16 where the output's rows start on a word (ALIGN_Y), else one half at a time with atomics
// on its own bits (the word is shared with another workgroup's output or with a neighbouring
// tensor).
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
// Shared buffers of each operand: 2 (the next slice is stored while the current one is
// multiplied, one barrier a slice) or 1 (half the shared memory, two barriers a slice: room for
// deeper slices or wider tiles within the device's limit).
layout(constant_id = 14) const uint STAGES = 2;
// Timing probes (wrong results; OPENINFER_VULKAN_COOPMAT_PROBE, for tuning only): 1 fetches only
// the first slice from global memory, 2 leaves out the products (and so the shared loads), 3 the
// fetches, the shared stores and the barriers (the products out of shared memory alone). With
// loaders, 1 is not a probe, 2 leaves the copies and the counting alone, 3 leaves the products
// alone (no loads, no counting), 4 runs the copies and the products side by side without
// counting (neither waits for the other: what they cost together when nothing waits).
layout(constant_id = 15) const uint PROBE = 0;
// With two shared buffers, subgroups below EARLY store the next slice right after fetching it,
// before their products, the others after theirs: while the first wait for their loads the
// others keep the tensor cores busy, and the reverse at the end of the slice (0: all after).
layout(constant_id = 16) const uint EARLY = 0;
// Loader subgroups (0: none): LOADER_GROUPS groups of LOADER_WARPS subgroups after the
// computing ones only copy slices from global to shared memory, each group every
// LOADER_GROUPS-th slice, into a ring of STAGES (up to 4) buffers; the computing subgroups only
// multiply. They meet through counters in shared memory instead of workgroup barriers: a group
// waits until every computing subgroup is done with a buffer before refilling it, a computing
// subgroup until the buffer's slice is stored. So LOADER_GROUPS slices are in flight while the
// tensor cores work, and no barrier stops the computing subgroups.
layout(constant_id = 17) const uint LOADER_GROUPS = 0;
layout(constant_id = 18) const uint LOADER_WARPS = 1;
// With loaders and one matrix step a slice (BK = LK): a multiplying subgroup loads all of the
// slice's matrices into registers and counts the buffer free before its products, so that the
// loaders refill it meanwhile (more registers; OPENINFER_VULKAN_COOPMAT_FREE=early).
layout(constant_id = 19) const uint FREE_EARLY = 0;
// Aligned operands are read as coherent vectors, past the L1 (OPENINFER_VULKAN_COOPMAT_LOADS=l2;
// a workgroup reads each slice once). Slower on the H200 (docs/vulkan.md); kept for tuning.
layout(constant_id = 20) const uint L2_LOADS = 0;
const bool FETCHES = PROBE != 1u && PROBE != 3u, PRODUCTS = PROBE != 2u;
const bool SYNC = PROBE != 3u && PROBE != 4u;

const uint LANES = 32, SUBGROUPS = WG / LANES;
const uint COMPUTE_SG = SUBGROUPS - LOADER_GROUPS * LOADER_WARPS;  // the multiplying subgroups
const uint WN = COMPUTE_SG / WM;
layout(local_size_x_id = 12) in;

// p: output elements, M, K, N, the element offsets of a, b and y, batches, then from 8 on
// (a matrix, b matrix) per output batch (0 where a batch dim broadcasts): matmul_generic's.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer A4 { uvec4 a4[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 2) readonly buffer B4 { uvec4 b4[]; };
// The same vectors read as coherent (device-scope visible: not kept in the SM's L1), for
// L2_LOADS.
layout(std430, binding = 1) coherent readonly buffer A4C { uvec4 a4c[]; };
layout(std430, binding = 2) coherent readonly buffer B4C { uvec4 b4c[]; };
layout(std430, binding = 3) buffer Y { uint y[]; };

const uint PAD = 8;  // halves a shared row is padded by
const uint A_ROW = (BK + PAD) / 8, B_ROW = (BN + PAD) / 8;  // shared rows, in 16-byte vectors
// STAGES slices of each (without loaders and 2, one multiplied while the next is stored); after
// the last product a_tile
// also stages the results, LM x LN f32 a subgroup (kernels/matmul_coop.cpp checks it fits).
shared uvec4 a_tile[STAGES * BM * A_ROW];
shared uvec4 b_tile[STAGES * BK * B_ROW];

// Vectors of a slice, and an invocation's share (the last share may be partial).
const uint A_TOTAL = BM * BK / 8, B_TOTAL = BK * BN / 8;
const uint A_VECS = (A_TOTAL + WG - 1u) / WG, B_VECS = (B_TOTAL + WG - 1u) / WG;
const uint TILE_ROWS = BM / WM / LM, TILE_COLS = BN / WN / LN;     // matrices a subgroup
// A loader group's invocations and each one's share of a slice.
const uint LT = LOADER_WARPS * LANES;
const uint LA_VECS = (A_TOTAL + LT - 1u) / LT, LB_VECS = (B_TOTAL + LT - 1u) / LT;
// Per ring buffer: loader subgroups that stored a slice into it, computing subgroups done with
// one (both only grow during a batch).
shared uint filled[4], emptied[4];

// A waiting subgroup takes an acquire load each time round. (Relaxed loads and one acquire
// fence after them, once a tuning option, gave wrong outputs on the H200: docs/vulkan.md.)
void wait_filled(uint stage, uint target) {
  while (atomicLoad(filled[stage], gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                    gl_SemanticsAcquire) < target) {
  }
}

void wait_emptied(uint stage, uint target) {
  while (atomicLoad(emptied[stage], gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                    gl_SemanticsAcquire) < target) {
  }
}

// The subgroup's accesses to the buffer come before the count, for whoever acquires it.
void signal_filled(uint stage) {
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  if (subgroupElect()) {
    atomicAdd(filled[stage], 1u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease);
  }
}

void signal_emptied(uint stage) {
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  if (subgroupElect()) {
    atomicAdd(emptied[stage], 1u, gl_ScopeWorkgroup, gl_StorageSemanticsShared,
              gl_SemanticsRelease);
  }
}

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
  if (slot >= A_TOTAL || row >= M || k >= K) return uvec4(0u);
  const uint e = a0 + row * K + k;
  if (ALIGN_A != 0u) return L2_LOADS != 0u ? a4c[e >> 3u] : a4[e >> 3u];
  GATHER8(a, e, e - k + K)
  return v;
}

uvec4 fetch_b(uint slot, uint b0, uint n0, uint k0, uint K, uint N) {
  const uint r = slot / (BN / 8u), c = (slot % (BN / 8u)) * 8u;
  const uint k = k0 + r, col = n0 + c;
  if (slot >= B_TOTAL || k >= K || col >= N) return uvec4(0u);
  const uint e = b0 + k * N + col;
  if (ALIGN_B != 0u) return L2_LOADS != 0u ? b4c[e >> 3u] : b4[e >> 3u];
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
    if (A_TOTAL % WG != 0u && v >= A_TOTAL) break;
    a_tile[which * BM * A_ROW + (v / (BK / 8u)) * A_ROW + v % (BK / 8u)] = next_a[q];
  }
  [[unroll]] for (uint q = 0u; q < B_VECS; ++q) {
    const uint v = t + q * WG;
    if (B_TOTAL % WG != 0u && v >= B_TOTAL) break;
    b_tile[which * BK * B_ROW + (v / (BN / 8u)) * B_ROW + v % (BN / 8u)] = next_b[q];
  }
}

// One f16 output element on its own bits of a shared word.
void store_half(uint e, uint bits) {
  const uint shift = (e & 1u) * 16u;
  atomicAnd(y[e >> 1u], ~(0xffffu << shift));
  atomicOr(y[e >> 1u], bits << shift);
}

// acc += this subgroup's part of the slice in shared buffer (a_base, b_base).
#define MULTIPLY_SLICE(a_base, b_base)                                                     \
  [[unroll]] for (uint kk = 0u; kk < BK && PRODUCTS; kk += LK) {                           \
    fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> ma[TILE_ROWS];                                \
    [[unroll]] for (uint i = 0u; i < TILE_ROWS; ++i) {                                     \
      const uint row = (sm * TILE_ROWS + i) * LM;                                          \
      coopMatLoadNV(ma[i], a_tile, (a_base) + row * A_ROW + kk / 8u, A_ROW, false);        \
    }                                                                                      \
    [[unroll]] for (uint j = 0u; j < TILE_COLS; ++j) {                                     \
      fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> mb;                                         \
      const uint col = (sn * TILE_COLS + j) * LN;                                          \
      coopMatLoadNV(mb, b_tile, (b_base) + kk * B_ROW + col / 8u, B_ROW, false);           \
      [[unroll]] for (uint i = 0u; i < TILE_ROWS; ++i) {                                   \
        acc[i][j] = coopMatMulAddNV(ma[i], mb, acc[i][j]);                                 \
      }                                                                                    \
    }                                                                                      \
  }

// acc += this subgroup's part of a one-step slice (BK = LK), every matrix loaded first; `done`
// runs between the loads and the products.
#define MULTIPLY_HELD(a_base, b_base, done)                                                \
  {                                                                                        \
    fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> ma[TILE_ROWS];                                \
    fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> mb[TILE_COLS];                                \
    [[unroll]] for (uint i = 0u; i < TILE_ROWS; ++i) {                                     \
      const uint row = (sm * TILE_ROWS + i) * LM;                                          \
      coopMatLoadNV(ma[i], a_tile, (a_base) + row * A_ROW, A_ROW, false);                  \
    }                                                                                      \
    [[unroll]] for (uint j = 0u; j < TILE_COLS; ++j) {                                     \
      const uint col = (sn * TILE_COLS + j) * LN;                                          \
      coopMatLoadNV(mb[j], b_tile, (b_base) + col / 8u, B_ROW, false);                     \
    }                                                                                      \
    done;                                                                                  \
    [[unroll]] for (uint j = 0u; j < TILE_COLS; ++j) {                                     \
      [[unroll]] for (uint i = 0u; i < TILE_ROWS; ++i) {                                   \
        acc[i][j] = coopMatMulAddNV(ma[i], mb[j], acc[i][j]);                              \
      }                                                                                    \
    }                                                                                      \
  }

// A loader's fetched slice (ra, rb) into ring buffer `stage`.
#define STORE_LOADED(stage)                                                                \
  [[unroll]] for (uint q = 0u; q < LA_VECS; ++q) {                                         \
    const uint v = lt + q * LT;                                                            \
    if (A_TOTAL % LT != 0u && v >= A_TOTAL) break;                                         \
    a_tile[(stage) * BM * A_ROW + (v / (BK / 8u)) * A_ROW + v % (BK / 8u)] = ra[q];        \
  }                                                                                        \
  [[unroll]] for (uint q = 0u; q < LB_VECS; ++q) {                                         \
    const uint v = lt + q * LT;                                                            \
    if (B_TOTAL % LT != 0u && v >= B_TOTAL) break;                                         \
    b_tile[(stage) * BK * B_ROW + (v / (BN / 8u)) * B_ROW + v % (BN / 8u)] = rb[q];        \
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
    const uint slices = (K + BK - 1u) / BK;
    if (LOADER_GROUPS != 0u) {
      barrier();  // the previous batch's staging in a_tile is read out
      if (t < 4u) {
        filled[t] = 0u;
        emptied[t] = 0u;
      }
      barrier();
      if (!SYNC) {  // probes 3 and 4: the products out of the ring as it happens to hold
        if (sg < COMPUTE_SG) {
          for (uint s = 0u; s < slices; ++s) {
            const uint stage = s % STAGES;
            MULTIPLY_SLICE(stage * BM * A_ROW, stage * BK * B_ROW)
          }
        } else if (PROBE == 4u) {  // and the copies beside them, neither waiting
          const uint group = (sg - COMPUTE_SG) / LOADER_WARPS;
          const uint lt = ((sg - COMPUTE_SG) % LOADER_WARPS) * LANES + lane;
          for (uint s = group; s < slices; s += LOADER_GROUPS) {
            const uint stage = s % STAGES;
            uvec4 ra[LA_VECS], rb[LB_VECS];
            [[unroll]] for (uint q = 0u; q < LA_VECS; ++q)
              ra[q] = fetch_a(lt + q * LT, a0, m0, s * BK, M, K);
            [[unroll]] for (uint q = 0u; q < LB_VECS; ++q)
              rb[q] = fetch_b(lt + q * LT, b0, n0, s * BK, K, N);
            STORE_LOADED(stage)
          }
        }
      } else if (sg >= COMPUTE_SG) {  // a loader: slices group, group + LOADER_GROUPS, ...
        const uint group = (sg - COMPUTE_SG) / LOADER_WARPS;
        const uint lt = ((sg - COMPUTE_SG) % LOADER_WARPS) * LANES + lane;
        for (uint s = group; s < slices; s += LOADER_GROUPS) {
          const uint stage = s % STAGES, round = s / STAGES;
          uvec4 ra[LA_VECS], rb[LB_VECS];
          [[unroll]] for (uint q = 0u; q < LA_VECS; ++q)
            ra[q] = fetch_a(lt + q * LT, a0, m0, s * BK, M, K);
          [[unroll]] for (uint q = 0u; q < LB_VECS; ++q)
            rb[q] = fetch_b(lt + q * LT, b0, n0, s * BK, K, N);
          if (round > 0u) wait_emptied(stage, COMPUTE_SG * round);
          STORE_LOADED(stage)
          signal_filled(stage);
        }
      } else {
        for (uint s = 0u; s < slices; ++s) {
          const uint stage = s % STAGES;
          wait_filled(stage, LOADER_WARPS * (s / STAGES + 1u));
          if (FREE_EARLY != 0u && BK == LK) {
            MULTIPLY_HELD(stage * BM * A_ROW, stage * BK * B_ROW, signal_emptied(stage))
          } else {
            MULTIPLY_SLICE(stage * BM * A_ROW, stage * BK * B_ROW)
            signal_emptied(stage);
          }
        }
      }
      barrier();  // every slice is multiplied: a_tile can stage the results
    } else {
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
      for (uint s0 = 0u; s0 < slices; s0 += DEPTH) {
        [[unroll]] for (uint u = 0u; u < DEPTH; ++u) {
          const uint s = s0 + u;
          if (s >= slices) break;  // the same for the whole workgroup
          if (FETCHES && s + DEPTH < slices) {  // set u's slice s is stored: it takes s + DEPTH
            const uint k_next = (s + DEPTH) * BK;
            [[unroll]] for (uint q = 0u; q < A_VECS; ++q)
              next_a[u][q] = fetch_a(t + q * WG, a0, m0, k_next, M, K);
            [[unroll]] for (uint q = 0u; q < B_VECS; ++q)
              next_b[u][q] = fetch_b(t + q * WG, b0, n0, k_next, K, N);
          }
          const uint cur = STAGES == 2u ? s & 1u : 0u;
          const uint w = (u + 1u) % DEPTH;  // the register set holding slice s + 1
          const bool early = STAGES == 2u && sg < EARLY;
          if (SYNC && early && s + 1u < slices) store_slice(cur ^ 1u, next_a[w], next_b[w]);
          MULTIPLY_SLICE(cur * BM * A_ROW, cur * BK * B_ROW)
          // With two buffers the other one was last read before the previous barrier: free to
          // fill. With one, every subgroup must be done with it first.
          if (SYNC) {
            if (STAGES == 1u) barrier();
            if (!early && s + 1u < slices) {
              store_slice(STAGES == 2u ? cur ^ 1u : 0u, next_a[w], next_b[w]);
            }
            barrier();
          }
        }
      }
    }
    if (sg >= COMPUTE_SG) continue;  // a loader
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
