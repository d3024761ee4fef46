// attention(q, k, v[, mask]) of ops-nn.md for many query rows (prefill), FlashAttention-2 style:
// one workgroup per (block of BQ query rows, batch); four lanes per row, each holding a quarter
// of the row's q and of its output in registers (quads g, g + 4, ...: the four lanes read four
// neighbouring quads of a key, no bank conflicts). Keys go by tiles of BK: K (then V) staged in
// shared memory with coalesced loads, read back as broadcasts; the four partial dot products
// of a score meet by subgroup shuffles (every lane gets the same bits); an online softmax per
// row (running max and sum, the output rescaled when the max grows); one division at the end.
// The next tile's K and this tile's V are read into registers while the scores are computed.
// Causal: tiles above the diagonal are never visited (query i sees keys j <= i + Tk - Tq), and
// the blocks with the most keys start first. A row with no visible key gives 0, a NaN score
// makes its row NaN, and a zero weight never touches its V row (as attention.comp).
// Shared memory: BK * max(DQ, DVQ) quads + the mask tile (24.3 KiB at D = Dv = 128, BK = 32,
// BQ = 64), within the 32 KiB of lavapipe.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#include "attention_fast.glsl"

layout(constant_id = 3) const uint DQ = 32;   // quads of a q/k row: D / 4 rounded up to 4s
layout(constant_id = 4) const uint DVQ = 32;  // quads of a v/y row: Dv / 4 rounded up to 4s
layout(constant_id = 5) const uint BK = 32;   // keys a tile
layout(constant_id = 6) const uint WG = 256;  // invocations: BQ = WG / 4 rows a block
layout(local_size_x_id = 6) in;

const uint SPLIT = 4, BQ = WG / SPLIT, QPT = DQ / SPLIT, OPT = DVQ / SPLIT;
const uint KQ = DQ > DVQ ? DQ : DVQ;
const uint LK = (BK * DQ + WG - 1u) / WG, LV = (BK * DVQ + WG - 1u) / WG;  // quads staged each
const uint MS = BK + 1u;  // the mask tile's row stride: the rows of a subgroup hit distinct banks
const uint LM = MDT == NO_MASK ? 1u : (BQ * BK + WG - 1u) / WG;
shared vec4 kv[BK * KQ];  // the K tile ([key][DQ]), then the V tile ([key][DVQ])
shared uint mt[MDT == NO_MASK ? 1u : BQ * MS];

void main() {
  const uint Tq = p[0], Tk = p[1], D = p[2], Dv = p[3], batches = p[4];
  const bool causal = p[5] != 0u;
  const float scale = uintBitsToFloat(p[6]);
  const uint t = gl_LocalInvocationIndex, lane = lane_index(), lr = lane / SPLIT, g = lane % SPLIT;
  const uint blocks = (Tq + BQ - 1u) / BQ;
  const int shift = int(Tk) - int(Tq);  // causal: query i sees keys j <= i + shift
  for (uint w = gl_WorkGroupID.x; w < blocks * batches; w += gl_NumWorkGroups.x) {
    const uint blk = blocks - 1u - w / batches, b = w % batches;
    const uint qb = p[16u + 4u * b], kb = p[17u + 4u * b], vb = p[18u + 4u * b];
    const uint mb = p[19u + 4u * b];
    const uint i0 = blk * BQ, i = i0 + lr;
    const bool row_ok = i < Tq;
    vec4 qv[QPT];
    [[unroll]] for (uint u = 0u; u < QPT; ++u)
      qv[u] = row_ok ? load_q(qb + i * D, g + SPLIT * u, D) : vec4(0.0);
    // The last key any row of the block sees, and the last this row sees.
    const int block_last = causal ? min(int(Tk) - 1, int(i0 + BQ - 1u) + shift) : int(Tk) - 1;
    const uint tiles = block_last < 0 ? 0u : uint(block_last) / BK + 1u;
    const int row_last = !row_ok ? -1 : causal ? int(i) + shift : int(Tk) - 1;
    float m = NEG_INF, total = 0.0;
    bool nan_seen = false;
    vec4 o[OPT];
    [[unroll]] for (uint u = 0u; u < OPT; ++u) o[u] = vec4(0.0);

    // Tile 0's K and mask into registers (tile_k / tile_m), stored at the top of each step.
    vec4 rk[LK];
    uint rm[LM];
    [[unroll]] for (uint c = 0u; c < LK; ++c) {
      const uint e = t + c * WG, key = e / DQ;
      rk[c] = e < BK * DQ && key < Tk ? load_k(kb + key * D, e % DQ, D) : vec4(0.0);
    }
    [[unroll]] for (uint c = 0u; c < LM; ++c) {
      const uint e = t + c * WG, row = i0 + e / BK, key = e % BK;
      rm[c] = MDT != NO_MASK && e < BQ * BK && row < Tq && key < Tk
                  ? mask_bits(mb + row * p[7] + key * p[8])
                  : 0u;
    }
    for (uint tile = 0u; tile < tiles; ++tile) {
      const uint j0 = tile * BK;
      [[unroll]] for (uint c = 0u; c < LK; ++c)
        if (t + c * WG < BK * DQ) kv[t + c * WG] = rk[c];
      [[unroll]] for (uint c = 0u; c < LM; ++c) {
        const uint e = t + c * WG;
        if (MDT != NO_MASK && e < BQ * BK) mt[(e / BK) * MS + e % BK] = rm[c];
      }
      barrier();
      // This tile's V and the next tile's K and mask travel while the scores are computed.
      vec4 rv[LV];
      [[unroll]] for (uint c = 0u; c < LV; ++c) {
        const uint e = t + c * WG, key = j0 + e / DVQ;
        rv[c] = e < BK * DVQ && key < Tk ? load_v(vb + key * Dv, e % DVQ, Dv) : vec4(0.0);
      }
      if (tile + 1u < tiles) {
        const uint j1 = j0 + BK;
        [[unroll]] for (uint c = 0u; c < LK; ++c) {
          const uint e = t + c * WG, key = j1 + e / DQ;
          rk[c] = e < BK * DQ && key < Tk ? load_k(kb + key * D, e % DQ, D) : vec4(0.0);
        }
        [[unroll]] for (uint c = 0u; c < LM; ++c) {
          const uint e = t + c * WG, row = i0 + e / BK, key = j1 + e % BK;
          rm[c] = MDT != NO_MASK && e < BQ * BK && row < Tq && key < Tk
                      ? mask_bits(mb + row * p[7] + key * p[8])
                      : 0u;
        }
      }
      // Scores: each lane's quarter of the dot products, then the four quarters summed (the
      // same two additions, in the same order, on every lane of the row).
      float s[BK];
      [[unroll]] for (uint j = 0u; j < BK; ++j) {
        float acc = 0.0;
        [[unroll]] for (uint u = 0u; u < QPT; ++u) acc += dot(qv[u], kv[j * DQ + g + SPLIT * u]);
        s[j] = acc;
      }
      [[unroll]] for (uint j = 0u; j < BK; ++j) s[j] += subgroupShuffleXor(s[j], 1u);
      [[unroll]] for (uint j = 0u; j < BK; ++j) s[j] += subgroupShuffleXor(s[j], 2u);
      float tile_max = NEG_INF;
      [[unroll]] for (uint j = 0u; j < BK; ++j) {
        bool keep = int(j0 + j) <= row_last;
        float sc = masked_score(s[j], scale, MDT != NO_MASK ? mt[lr * MS + j] : 0u, keep);
        if (keep && is_nan(sc)) {
          nan_seen = true;
          sc = NEG_INF;  // the row ends up NaN; keep the softmax arithmetic finite
        }
        s[j] = sc;
        tile_max = max(tile_max, sc);
      }
      // Online softmax: weights against the running max, older sums rescaled when it grows.
      const float new_m = max(m, tile_max);
      float rescale = 1.0;
      if (new_m != NEG_INF) {
        rescale = m == NEG_INF ? 0.0 : exp(m - new_m);
        m = new_m;
      }
      float part = 0.0;
      [[unroll]] for (uint j = 0u; j < BK; ++j) {
        s[j] = s[j] == NEG_INF ? 0.0 : exp(s[j] - m);
        part += s[j];
      }
      total = total * rescale + part;
      [[unroll]] for (uint u = 0u; u < OPT; ++u) o[u] *= rescale;
      barrier();  // every lane is done with K
      [[unroll]] for (uint c = 0u; c < LV; ++c)
        if (t + c * WG < BK * DVQ) kv[t + c * WG] = rv[c];
      barrier();
      [[unroll]] for (uint j = 0u; j < BK; ++j) {
        if (s[j] != 0.0) {
          [[unroll]] for (uint u = 0u; u < OPT; ++u) o[u] += s[j] * kv[j * DVQ + g + SPLIT * u];
        }
      }
      barrier();  // every lane is done with V before the next K is stored
    }
    if (row_ok) {
      const uint y_row = p[9] + (b * Tq + i) * Dv;
      [[unroll]] for (uint u = 0u; u < OPT; ++u) {
        [[unroll]] for (uint c = 0u; c < 4u; ++c) {
          const uint col = 4u * (g + SPLIT * u) + c;
          if (col < Dv) store(y_row + col, nan_seen ? nan_value() : total > 0.0 ? o[u][c] / total : 0.0);
        }
      }
    }
  }
}
