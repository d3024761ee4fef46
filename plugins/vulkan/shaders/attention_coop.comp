// attention(q, k, v) of ops-nn.md in f16 on tensor cores (GL_NV_cooperative_matrix;
// kernels/attention.cpp chooses it where the device has it): many query rows (prefill), no mask
// (causal or not), D and Dv multiples of 16 up to 128, every q/k/v matrix on 8 elements.
//
// FlashAttention-2 style: a workgroup of SG subgroups takes BQ = 16 SG query rows of one batch,
// 16 a subgroup, and walks the keys by tiles of BK (K and V staged in shared memory, the next
// tile's fetched into registers while this one is multiplied). A subgroup's scores S = Q K^T are
// cooperative matrices (f16 inputs: products exact in f32, summed in f32 by the tensor cores);
// they go through shared memory to the lanes, two a row, which apply the scale and the causal
// limit and keep the online softmax (running max and sum in f32, as attention_flash.comp). The
// weights P are in [0, 1]; P 2^15 is split into two f16 parts hi + lo whose sum is within
// 2^-22 of it relatively, 2^-25 absolutely (about f32's precision), and O += hi V + lo V on
// the tensor cores (products of two f16 exact in f32, sums in f32): no product sees P rounded
// to f16. O's rows are rescaled when a row's max grows, per element: the row of each element of
// an accumulator is read off a matrix loaded from a table of row numbers (matrices of one type
// share their element layout). At the end O / (sum 2^15), rounded once to f16.
// A row with no visible key gives 0, a NaN score makes its row NaN (as attention_flash.comp).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#include "attention_fast.glsl"

layout(constant_id = 3) const uint LN = 16;  // the cooperative matrix shape: 16 x LN over LK
layout(constant_id = 4) const uint LK = 16;
layout(constant_id = 5) const uint D = 128;   // q/k row length (a multiple of 16, <= 128)
layout(constant_id = 6) const uint DV = 128;  // v/y row length (a multiple of 16, <= 128)
layout(constant_id = 7) const uint BK = 32;   // keys a tile (a multiple of 16)
layout(constant_id = 8) const uint SG = 4;    // subgroups: BQ = 16 SG rows (BQ <= 2 BK)
layout(constant_id = 9) const uint WGS = 128;  // invocations: 32 SG
layout(local_size_x_id = 9) in;

const uint LM = 16, LANES = 32, WG = SG * LANES, BQ = SG * LM;
const float P_SCALE = 32768.0;  // 2^15: P 2^15 <= 32768, its parts' error 2^-25 (f16 subnormal)
// Shared rows in 16-byte vectors (8 halves), padded by one vector against bank conflicts.
const uint DS = (D > DV ? D : DV) / 8u + 1u;
const uint KV_ROWS = 2u * BK;  // K in rows 0..BK-1, V in BK..2BK-1; Q (BQ rows) staged first
const uint SS = BK + 4u;       // a score row in floats
const uint PS = BK / 8u + 1u;  // a weight row in vectors
const uint HALF = BK / 2u;     // keys each of a row's two lanes takes
const uint K_VECS = BK * D / 8u, V_VECS = BK * DV / 8u;
const uint K_PER = (K_VECS + WG - 1u) / WG, V_PER = (V_VECS + WG - 1u) / WG;

shared uvec4 kv[KV_ROWS * DS];
shared float st[SG * LM * SS];      // each subgroup's scores, then its output staging
shared uvec4 pt[SG * 2u * LM * PS];  // each subgroup's weights: hi rows, then lo rows
shared float rf[SG * LM];            // each subgroup's per-row factors
shared float row_of[LM * LN];        // element (r, c) = r

// Vector `slot` of the K (V) tile from key j0 on: 8 halves of key j0 + slot / (D / 8), zeros
// past Tk (every row starts on 8 elements: the host checks).
uvec4 fetch_k(uint kb, uint slot, uint j0, uint Tk) {
  const uint key = j0 + slot / (D / 8u), c = slot % (D / 8u);
  return slot < K_VECS && key < Tk ? k4[(kb + key * D) / 8u + c] : uvec4(0u);
}
uvec4 fetch_v(uint vb, uint slot, uint j0, uint Tk) {
  const uint key = j0 + slot / (DV / 8u), c = slot % (DV / 8u);
  return slot < V_VECS && key < Tk ? v4[(vb + key * DV) / 8u + c] : uvec4(0u);
}

void main() {
  const uint Tq = p[0], Tk = p[1], batches = p[4];
  const bool causal = p[5] != 0u;
  const float scale = uintBitsToFloat(p[6]);
  // Subgroups of 32 (the host checks): sg-th 16 rows, lane 2r + h in the softmax pass.
  const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID, t = gl_LocalInvocationIndex;
  const uint r = lane / 2u, h = lane % 2u;  // the softmax pass: row r, keys h HALF .. + HALF
  const uint blocks = (Tq + BQ - 1u) / BQ;
  const int shift = int(Tk) - int(Tq);  // causal: query i sees keys j <= i + shift
  for (uint e = t; e < LM * LN; e += WG) row_of[e] = float(e / LN);
  barrier();
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> rows;
  coopMatLoadNV(rows, row_of, 0u, LN, false);

  for (uint w = gl_WorkGroupID.x; w < blocks * batches; w += gl_NumWorkGroups.x) {
    const uint blk = blocks - 1u - w / batches, b = w % batches;
    const uint qb = p[16u + 4u * b], kb = p[17u + 4u * b], vb = p[18u + 4u * b];
    const uint i0 = blk * BQ, s0 = i0 + sg * LM;  // the block's first row, the subgroup's
    // Q through shared memory (zeros past Tq) into registers.
    barrier();  // the previous block is done with kv
    for (uint e = t; e < BQ * (D / 8u); e += WG) {
      const uint row = e / (D / 8u), c = e % (D / 8u);
      kv[row * DS + c] = i0 + row < Tq ? q4[(qb + (i0 + row) * D) / 8u + c] : uvec4(0u);
    }
    barrier();
    fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> qm[D / LK];
    [[unroll]] for (uint d = 0u; d < D / LK; ++d)
      coopMatLoadNV(qm[d], kv, sg * LM * DS + d * (LK / 8u), DS, false);
    const int block_last = causal ? min(int(Tk) - 1, int(i0 + BQ - 1u) + shift) : int(Tk) - 1;
    const uint tiles = block_last < 0 ? 0u : uint(block_last) / BK + 1u;
    // The last key this subgroup's rows see, and this lane's row.
    const int sub_last = s0 >= Tq ? -1 : causal ? min(int(Tk) - 1, int(s0 + LM - 1u) + shift)
                                                : int(Tk) - 1;
    const uint i = s0 + r;
    const int row_last = i >= Tq ? -1 : causal ? int(i) + shift : int(Tk) - 1;
    float m = NEG_INF, total = 0.0;
    bool nan_seen = false;
    fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> o[DV / LN];
    [[unroll]] for (uint n = 0u; n < DV / LN; ++n) o[n] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);

    uvec4 rk[K_PER], rv[V_PER];
    [[unroll]] for (uint c = 0u; c < K_PER; ++c) rk[c] = fetch_k(kb, t + c * WG, 0u, Tk);
    [[unroll]] for (uint c = 0u; c < V_PER; ++c) rv[c] = fetch_v(vb, t + c * WG, 0u, Tk);
    barrier();  // every subgroup has its Q
    for (uint tile = 0u; tile < tiles; ++tile) {
      const uint j0 = tile * BK;
      [[unroll]] for (uint c = 0u; c < K_PER; ++c) {
        const uint e = t + c * WG;
        if (e < K_VECS) kv[(e / (D / 8u)) * DS + e % (D / 8u)] = rk[c];
      }
      [[unroll]] for (uint c = 0u; c < V_PER; ++c) {
        const uint e = t + c * WG;
        if (e < V_VECS) kv[(BK + e / (DV / 8u)) * DS + e % (DV / 8u)] = rv[c];
      }
      barrier();
      if (tile + 1u < tiles) {  // the next tile travels while this one is multiplied
        [[unroll]] for (uint c = 0u; c < K_PER; ++c) rk[c] = fetch_k(kb, t + c * WG, j0 + BK, Tk);
        [[unroll]] for (uint c = 0u; c < V_PER; ++c) rv[c] = fetch_v(vb, t + c * WG, j0 + BK, Tk);
      }
      if (int(j0) <= sub_last) {  // subgroup-uniform: a tile this subgroup's rows see
        // S = Q K^T, a 16 x BK strip, to shared memory.
        [[unroll]] for (uint n = 0u; n < BK / LN; ++n) {
          fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> s = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);
          [[unroll]] for (uint d = 0u; d < D / LK; ++d) {
            fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> kt;  // K^T: column `key` is K's row
            coopMatLoadNV(kt, kv, n * LN * DS + d * (LK / 8u), DS, true);
            s = coopMatMulAddNV(qm[d], kt, s);
          }
          coopMatStoreNV(s, st, sg * LM * SS + n * LN, SS, false);
        }
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        // The online softmax, two lanes a row (lanes 2r and 2r + 1: neighbours in a subgroup).
        float sv[HALF];
        float tile_max = NEG_INF;
        [[unroll]] for (uint j = 0u; j < HALF; ++j) {
          const uint key = j0 + h * HALF + j;
          bool keep = int(key) <= row_last;
          float sc = masked_score(st[(sg * LM + r) * SS + h * HALF + j], scale, 0u, keep);
          if (keep && is_nan(sc)) {
            nan_seen = true;
            sc = NEG_INF;
          }
          sv[j] = sc;
          tile_max = max(tile_max, sc);
        }
        tile_max = max(tile_max, subgroupShuffleXor(tile_max, 1u));
        nan_seen = nan_seen || subgroupShuffleXor(uint(nan_seen), 1u) != 0u;
        const float new_m = max(m, tile_max);
        float rescale = 1.0;
        if (new_m != NEG_INF) {
          rescale = m == NEG_INF ? 0.0 : exp(m - new_m);
          m = new_m;
        }
        float part = 0.0;
        [[unroll]] for (uint j = 0u; j < HALF; j += 2u) {
          const float w0 = sv[j] == NEG_INF ? 0.0 : exp(sv[j] - m);
          const float w1 = sv[j + 1u] == NEG_INF ? 0.0 : exp(sv[j + 1u] - m);
          part += w0 + w1;
          const uint at = (sg * 2u * LM + r) * PS * 4u + (h * HALF + j) / 2u;  // in words
          // x = w 2^15 = hi + lo: hi keeps x's top 11 bits (an f16 from x >= 2^-14 on: the
          // bit mask leaves a compiler nothing to fold), lo = x - hi exactly, then rounded to
          // f16 (2^-22 x at most; below x = 2^-14, f16's spacing 2^-24 bounds both roundings).
          const vec2 x = vec2(w0, w1) * P_SCALE;
          const vec2 hi = uintBitsToFloat(floatBitsToUint(x) & 0xffffe000u);
          pt[at / 4u][at % 4u] = packHalf2x16(hi);
          pt[(at + LM * PS * 4u) / 4u][at % 4u] = packHalf2x16(x - hi);
        }
        part += subgroupShuffleXor(part, 1u);
        total = total * rescale + part;
        if (h == 0u) rf[sg * LM + r] = rescale;
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        // O's rows rescaled (each element by its row's factor), then O += hi V + lo V.
        fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> f;
        [[unroll]] for (uint e = 0u; e < f.length(); ++e) f[e] = rf[sg * LM + uint(rows[e])];
        [[unroll]] for (uint n = 0u; n < DV / LN; ++n) {
          [[unroll]] for (uint e = 0u; e < f.length(); ++e) o[n][e] *= f[e];
        }
        [[unroll]] for (uint c = 0u; c < BK / LK; ++c) {
          fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> phi, plo;
          coopMatLoadNV(phi, pt, sg * 2u * LM * PS + c * (LK / 8u), PS, false);
          coopMatLoadNV(plo, pt, (sg * 2u + 1u) * LM * PS + c * (LK / 8u), PS, false);
          [[unroll]] for (uint n = 0u; n < DV / LN; ++n) {
            fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> vm;
            coopMatLoadNV(vm, kv, (BK + c * LK) * DS + n * (LN / 8u), DS, false);
            o[n] = coopMatMulAddNV(phi, vm, o[n]);
            o[n] = coopMatMulAddNV(plo, vm, o[n]);
          }
        }
      }
      barrier();  // every subgroup is done with this tile's K and V
    }
    // y = O / (sum 2^15): the divisors a row, then out through the staging area, one LM x LN
    // matrix at a time, as f16 word pairs (DV even, y's offset even: the host checks).
    if (h == 0u) {
      rf[sg * LM + r] = nan_seen ? nan_value() : total > 0.0 ? total * P_SCALE : 0.0;
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> dv;
    [[unroll]] for (uint e = 0u; e < dv.length(); ++e) dv[e] = rf[sg * LM + uint(rows[e])];
    const uint y0 = p[9] + b * Tq * DV;
    [[unroll]] for (uint n = 0u; n < DV / LN; ++n) {
      [[unroll]] for (uint e = 0u; e < dv.length(); ++e) {
        o[n][e] = dv[e] == 0.0 ? 0.0 : o[n][e] / dv[e];  // NaN divisor: NaN
      }
      coopMatStoreNV(o[n], st, sg * LM * SS, SS, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      for (uint e = 2u * lane; e < LM * LN; e += 2u * LANES) {
        const uint row = s0 + e / LN, col = n * LN + e % LN;
        if (row < Tq) {
          const uint at = sg * LM * SS + (e / LN) * SS + e % LN;
          y[(y0 + row * DV + col) / 2u] = narrow_half(st[at], false) | (narrow_half(st[at + 1u], false) << 16u);
        }
      }
      subgroupBarrier();  // the staging area is read out before the next matrix
    }
  }
}
