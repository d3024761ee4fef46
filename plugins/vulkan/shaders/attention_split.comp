// attention(q, k, v[, mask]) of ops-nn.md for few query rows (decode), flash-decoding style: the
// keys are cut into chunks of CK = 16 * KPT and each workgroup takes one (query row, chunk), so
// a single row still spreads over the GPU. Eight lanes share a key: lane g reads quads g, g + 8,
// ... of the key's row (consecutive lanes, consecutive 16 bytes: coalesced) and the eight
// partial dot products meet by subgroup shuffles; the 16 groups of a workgroup take keys
// slot, slot + 16, ... Each workgroup writes (max, sum of weights, NaN seen, weighted V sums)
// to the partials buffer and attention_combine.comp merges the chunks; with a single chunk
// (p[12] = 1) the result is written here at once. Keys past the causal limit are skipped a
// chunk at a time; a row with no visible key gives 0 and a NaN score makes the row NaN.
// With VEC8 (f16 or bf16 rows on 8 elements) each lane reads 16 bytes of K and V at once: octet
// g + 8 (u / 2) of a row, its two quads held as quads u and u + 1 (half the load instructions of
// 8-byte quads; eight lanes still read 128 consecutive bytes).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#include "attention_fast.glsl"

layout(constant_id = 3) const uint DQ = 32;   // quads of a q/k row: D / 4 rounded up to 8s
layout(constant_id = 4) const uint DVQ = 32;  // quads of a v/y row: Dv / 4 rounded up to 8s
layout(constant_id = 5) const uint KPT = 8;   // keys of a chunk for each lane group
// 1: f16 or bf16, D and Dv multiples of 8 and every q/k/v matrix on 8 elements (with VEC4), DQ
// and DVQ multiples of 16: K and V read 16 bytes (an octet) a load.
layout(constant_id = 6) const uint VEC8 = 0;
layout(local_size_x = 128) in;

const uint WG = 128, LANES = 8, SLOTS = WG / LANES, CK = SLOTS * KPT;
const uint QPT = DQ / LANES, OPT = DVQ / LANES;
// V's quads of the chunk read as raw words right after K's, so that both reads are in flight
// together instead of V's waiting for the softmax: where they fit in 64 registers (16-byte
// rows of f32, f16 or bf16).
const bool PREFETCH_V =
    VEC4 != 0u && (DT == 0u || DT == 3u || DT == 4u) && KPT * OPT * (DT == 0u ? 4u : 2u) <= 64u;

// A macro: a spec-constant bool used inside functions trips glslc's optimizer.
#define WIDE (VEC8 != 0u && VEC4 != 0u && (DT == 3u || DT == 4u))

// The quad of a row a lane's u-th register holds: g + 8u, or with WIDE quad u % 2 of octet
// g + 8 (u / 2).
uint lane_quad(uint g, uint u) {
  return WIDE ? 2u * (g + LANES * (u / 2u)) + u % 2u : g + LANES * u;
}

// Quad `quad` of the v row at `row` as raw words (zeros past n), and widened as load_v would.
uvec4 raw_v(uint row, uint quad, uint n) {
  if (4u * quad >= n) return uvec4(0u);
  if (DT == 0u) return v4[(row >> 2) + quad];
  return uvec4(v2[(row >> 2) + quad], 0u, 0u);
}
// Octet `oct` of the K (V) row at `row` (a multiple of 8): 8 halves, zeros past n (n a multiple
// of 8 under WIDE).
uvec4 raw_k8(uint row, uint oct, uint n) {
  return 8u * oct < n ? k4[(row >> 3) + oct] : uvec4(0u);
}
uvec4 raw_v8(uint row, uint oct, uint n) {
  return 8u * oct < n ? v4[(row >> 3) + oct] : uvec4(0u);
}
vec4 widen_raw(uvec4 r) {
  if (DT == 0u) return uintBitsToFloat(r);
  if (DT == 3u) return vec4(widen_f16_pair(r.x), widen_f16_pair(r.y));
  return vec4(widen_half(r.x & 0xffffu, true), widen_half(r.x >> 16, true),
              widen_half(r.y & 0xffffu, true), widen_half(r.y >> 16, true));
}
shared vec4 sums[SLOTS * DVQ];
shared float group_max[WG], group_sum[WG];
shared bool group_nan[WG];

void main() {
  const uint Tq = p[0], Tk = p[1], D = p[2], Dv = p[3], rows = Tq * p[4];
  const bool causal = p[5] != 0u;
  const float scale = uintBitsToFloat(p[6]);
  const uint chunks = p[10], stride = p[11];
  const uint t = gl_LocalInvocationIndex, lane = lane_index(), slot = lane / LANES;
  const uint g = lane % LANES;
  for (uint row = gl_WorkGroupID.y; row < rows; row += gl_NumWorkGroups.y) {
    const uint b = row / Tq, i = row % Tq;
    const uint qb = p[16u + 4u * b], kb = p[17u + 4u * b], vb = p[18u + 4u * b];
    const uint mb = p[19u + 4u * b] + i * p[7];
    const int last = causal ? int(i) + int(Tk) - int(Tq) : int(Tk) - 1;  // the last visible key
    for (uint chunk = gl_WorkGroupID.x; chunk < chunks; chunk += gl_NumWorkGroups.x) {
      const uint j0 = chunk * CK;
      float m = NEG_INF, total = 0.0;
      bool nan_seen = false;
      vec4 o[OPT];
      [[unroll]] for (uint u = 0u; u < OPT; ++u) o[u] = vec4(0.0);
      if (int(j0) <= last) {  // uniform: the chunk holds a visible key
        vec4 qv[QPT];
        [[unroll]] for (uint u = 0u; u < QPT; ++u) qv[u] = load_q(qb + i * D, lane_quad(g, u), D);
        // Keys past Tk are read as key Tk - 1 (no branch keeps the loads together), then dropped.
        float s[KPT];
        [[unroll]] for (uint kk = 0u; kk < KPT; ++kk) {
          const uint j = min(j0 + slot + SLOTS * kk, Tk - 1u);
          float acc = 0.0;
          if (WIDE) {
            [[unroll]] for (uint u = 0u; u < QPT; u += 2u) {
              const uvec4 w = raw_k8(kb + j * D, g + LANES * (u / 2u), D);
              acc += dot(qv[u], widen_raw(uvec4(w.xy, 0u, 0u))) +
                     dot(qv[u + 1u], widen_raw(uvec4(w.zw, 0u, 0u)));
            }
          } else {
            [[unroll]] for (uint u = 0u; u < QPT; ++u)
              acc += dot(qv[u], load_k(kb + j * D, g + LANES * u, D));
          }
          s[kk] = acc;
        }
        uvec4 vraw[KPT][OPT];  // unused (and so dropped) without PREFETCH_V
        if (PREFETCH_V) {
          [[unroll]] for (uint kk = 0u; kk < KPT; ++kk) {
            const uint j = min(j0 + slot + SLOTS * kk, Tk - 1u);
            if (WIDE) {
              [[unroll]] for (uint u = 0u; u < OPT; u += 2u) {
                const uvec4 w = raw_v8(vb + j * Dv, g + LANES * (u / 2u), Dv);
                vraw[kk][u] = uvec4(w.xy, 0u, 0u);
                vraw[kk][u + 1u] = uvec4(w.zw, 0u, 0u);
              }
            } else {
              [[unroll]] for (uint u = 0u; u < OPT; ++u)
                vraw[kk][u] = raw_v(vb + j * Dv, g + LANES * u, Dv);
            }
          }
        }
        [[unroll]] for (uint kk = 0u; kk < KPT; ++kk) s[kk] += subgroupShuffleXor(s[kk], 1u);
        [[unroll]] for (uint kk = 0u; kk < KPT; ++kk) s[kk] += subgroupShuffleXor(s[kk], 2u);
        [[unroll]] for (uint kk = 0u; kk < KPT; ++kk) s[kk] += subgroupShuffleXor(s[kk], 4u);
        float local_max = NEG_INF;
        [[unroll]] for (uint kk = 0u; kk < KPT; ++kk) {
          const uint j = j0 + slot + SLOTS * kk;
          bool keep = int(j) <= last;
          float sc = masked_score(s[kk], scale, MDT != NO_MASK && keep ? mask_bits(mb + j * p[8]) : 0u,
                                  keep);
          if (keep && is_nan(sc)) {
            nan_seen = true;
            sc = NEG_INF;  // the row ends up NaN; keep the softmax arithmetic finite
          }
          s[kk] = sc;
          local_max = max(local_max, sc);
        }
        local_max = subgroupMax(local_max);
        const bool any_nan = subgroupAny(nan_seen);
        if (subgroupElect()) {
          group_max[gl_SubgroupID] = local_max;
          group_nan[gl_SubgroupID] = any_nan;
        }
        barrier();
        for (uint sg = 0u; sg < gl_NumSubgroups; ++sg) {
          m = max(m, group_max[sg]);
          nan_seen = nan_seen || group_nan[sg];
        }
        float local_sum = 0.0;
        [[unroll]] for (uint kk = 0u; kk < KPT; ++kk) {
          s[kk] = s[kk] == NEG_INF ? 0.0 : exp(s[kk] - m);
          local_sum += s[kk];
        }
        // Lane 0 of each group counts the group's keys once.
        local_sum = subgroupAdd(g == 0u ? local_sum : 0.0);
        if (subgroupElect()) group_sum[gl_SubgroupID] = local_sum;
        [[unroll]] for (uint kk = 0u; kk < KPT; ++kk) {
          const uint j = min(j0 + slot + SLOTS * kk, Tk - 1u);
          [[unroll]] for (uint u = 0u; u < OPT; ++u) {
            vec4 val;
            if (PREFETCH_V) {
              val = widen_raw(vraw[kk][u]);
            } else {
              val = load_v(vb + j * Dv, lane_quad(g, u), Dv);
            }
            if (s[kk] != 0.0) o[u] += s[kk] * val;  // a zero weight never touches its V row
          }
        }
        barrier();
        for (uint sg = 0u; sg < gl_NumSubgroups; ++sg) total += group_sum[sg];
      }
      // The 16 groups' sums per output quad, in a fixed order.
      [[unroll]] for (uint u = 0u; u < OPT; ++u) sums[slot * DVQ + lane_quad(g, u)] = o[u];
      barrier();
      if (t < DVQ) {
        vec4 acc = vec4(0.0);
        for (uint sl = 0u; sl < SLOTS; ++sl) acc += sums[sl * DVQ + t];
        if (p[12] != 0u) {
          const uint y_row = p[9] + row * Dv;
          [[unroll]] for (uint c = 0u; c < 4u; ++c) {
            const uint col = 4u * t + c;
            if (col < Dv) store(y_row + col, nan_seen ? nan_value() : total > 0.0 ? acc[c] / total : 0.0);
          }
        } else {
          const uint at = (row * chunks + chunk) * stride;
          if (t == 0u) {
            part[at] = m;
            part[at + 1u] = total;
            part[at + 2u] = nan_seen ? 1.0 : 0.0;
          }
          [[unroll]] for (uint c = 0u; c < 4u; ++c) part[at + 4u + 4u * t + c] = acc[c];
        }
      }
      barrier();  // sums[] and the group arrays are rewritten by the next chunk
    }
  }
}
