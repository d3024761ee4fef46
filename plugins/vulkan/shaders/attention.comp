// attention(q, k, v[, mask]) of ops-nn.md for f32, f16 and bf16: one workgroup per (query row,
// batch); keys in tiles of TILE scores in shared memory with an online softmax (the running sum
// and each thread's output columns are rescaled when the max grows), so Tk is unbounded.
// Dot products, scores and sums in f32. Keys hidden by `causal` or a false bool are left out; a
// row with no key left (or only -inf scores) gives 0, a row with a NaN score NaN.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"

layout(local_size_x = 128) in;

layout(constant_id = 0) const uint DT = 0;    // q, k, v, y: 0 f32, 3 f16, 4 bf16
layout(constant_id = 1) const uint MDT = 99;  // mask: 0 f32, 3 f16, 4 bf16, 9 bool, 99 none
const uint DT_F32 = 0, DT_BF16 = 4, DT_BOOL = 9, NO_MASK = 99;
const uint THREADS = 128, TILE = 1024, MAX_D = 1024, COLS = MAX_D / THREADS;

// p: Tq, Tk, D, Dv, batches, causal, scale (f32 bits), mask row stride, mask column stride,
// y element offset, -, ..., then per batch (q, k, v, mask element offsets) from 16.
layout(std430, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer Q { uint q[]; };
layout(std430, binding = 2) readonly buffer K { uint k[]; };
layout(std430, binding = 3) readonly buffer V { uint v[]; };
layout(std430, binding = 4) readonly buffer M { uint mk[]; };
layout(std430, binding = 5) buffer Y { uint y[]; };

shared float qs[MAX_D];
shared float scores[TILE];
shared float red[THREADS];
shared uint nan_seen;

#define LOAD16(buf, e, bf) widen_half((buf[(e) >> 1] >> (((e) & 1u) * 16u)) & 0xffffu, bf)
#define LOAD(buf, e) (DT == DT_F32 ? uintBitsToFloat(buf[e]) : LOAD16(buf, e, DT == DT_BF16))

// The additive mask value of element e, or false in `keep` for a masked-out key.
float mask_at(uint e, out bool keep) {
  keep = true;
  if (MDT == NO_MASK) return 0.0;
  if (MDT == DT_BOOL) {
    keep = ((mk[e >> 2] >> ((e & 3u) * 8u)) & 0xffu) != 0u;
    return 0.0;
  }
  // A float mask is added (a -inf score weighs 0, a NaN one makes the row NaN).
  return MDT == DT_F32 ? uintBitsToFloat(mk[e]) : LOAD16(mk, e, MDT == DT_BF16);
}

void store(uint e, float val) {
  if (DT == DT_F32) {
    y[e] = floatBitsToUint(val);
    return;
  }
  const uint shift = (e & 1u) * 16u;
  atomicAnd(y[e >> 1], ~(0xffffu << shift));
  atomicOr(y[e >> 1], narrow_half(val, DT == DT_BF16) << shift);
}

float reduce(float x, bool take_max) {
  const uint t = gl_LocalInvocationID.x;
  red[t] = x;
  barrier();
  for (uint s = THREADS / 2u; s > 0u; s >>= 1) {
    if (t < s) red[t] = take_max ? max(red[t], red[t + s]) : red[t] + red[t + s];
    barrier();
  }
  const float r = red[0];
  barrier();
  return r;
}

void main() {
  const uint Tq = p[0], Tk = p[1], D = p[2], Dv = p[3], t = gl_LocalInvocationID.x;
  const float scale = uintBitsToFloat(p[6]);
  const float NEG_INF = uintBitsToFloat(0xff800000u);
  for (uint b = gl_WorkGroupID.y; b < p[4]; b += gl_NumWorkGroups.y) {
    const uint qb = p[16u + 4u * b], kb = p[17u + 4u * b], vb = p[18u + 4u * b];
    const uint mb = p[19u + 4u * b];
    for (uint i = gl_WorkGroupID.x; i < Tq; i += gl_NumWorkGroups.x) {
      for (uint d = t; d < D; d += THREADS) qs[d] = LOAD(q, qb + i * D + d);
      if (t == 0u) nan_seen = 0u;
      barrier();
      // Keys j <= last are visible (causal); all of them otherwise.
      const int last = p[5] != 0u ? int(i) + int(Tk) - int(Tq) : int(Tk) - 1;
      float m = NEG_INF, total = 0.0;
      float acc[COLS];
      for (uint c = 0u; c < COLS; ++c) acc[c] = 0.0;
      for (uint j0 = 0u; j0 < Tk && int(j0) <= last; j0 += TILE) {
        const uint n = min(TILE, Tk - j0);
        float tile_max = NEG_INF;
        for (uint jj = t; jj < n; jj += THREADS) {
          const uint j = j0 + jj;
          bool keep = int(j) <= last;
          float s = NEG_INF;
          if (keep) {
            const float add = mask_at(mb + i * p[7] + j * p[8], keep);
            float dot = 0.0;
            for (uint d = 0u; d < D; ++d) dot += qs[d] * LOAD(k, kb + j * D + d);
            if (keep) s = dot * scale + add;
            if (keep && (floatBitsToUint(s) & 0x7fffffffu) > 0x7f800000u) {
              nan_seen = 1u;
              s = NEG_INF;  // the row ends up NaN; keep the softmax arithmetic finite
            }
          }
          scores[jj] = s;
          tile_max = max(tile_max, s);
        }
        const float new_m = max(m, reduce(tile_max, true));
        if (new_m == NEG_INF) continue;  // nothing visible yet (uniform: from shared memory)
        const float rescale = m == NEG_INF ? 0.0 : exp(m - new_m);
        m = new_m;
        float part = 0.0;
        for (uint jj = t; jj < n; jj += THREADS) {
          const float e = scores[jj] == NEG_INF ? 0.0 : exp(scores[jj] - m);
          scores[jj] = e;
          part += e;
        }
        total = total * rescale + reduce(part, false);  // the barrier publishes scores[]
        for (uint c = 0u; c < COLS; ++c) {
          const uint col = t + c * THREADS;
          if (col >= Dv) break;
          float sum = 0.0;
          for (uint jj = 0u; jj < n; ++jj) {
            const float e = scores[jj];
            if (e != 0.0) sum += e * LOAD(v, vb + (j0 + jj) * Dv + col);
          }
          acc[c] = acc[c] * rescale + sum;
        }
        barrier();  // scores[] is rewritten by the next tile
      }
      for (uint c = 0u; c < COLS; ++c) {
        const uint col = t + c * THREADS;
        if (col >= Dv) break;
        const float r = nan_seen != 0u ? uintBitsToFloat(0x7fc00000u) : total > 0.0 ? acc[c] / total : 0.0;
        store(p[9] + (b * Tq + i) * Dv + col, r);
      }
      barrier();  // qs[] is rewritten for the next row
    }
  }
}
