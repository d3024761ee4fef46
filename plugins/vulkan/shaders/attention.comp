// attention(q, k, v[, mask]) of ops-nn.md for f32, f16, bf16 and f8 (dot products, scores and sums
// in f32; an f64 mask, rounded to f32, needs the -DMASK_F64 build) and with -DF64 for f64 (all
// in f64, math_f64.glsl's exp): one workgroup per (query row, batch); keys in tiles of TILE
// scores in shared memory with an online softmax (the running sum and each thread's output
// columns are rescaled when the max grows), so Tk is unbounded. Keys hidden by `causal` or a false bool are left out; a
// row with no key left (or only -inf scores) gives 0, a row with a NaN score NaN.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#if defined(F64) || defined(MASK_F64)
#include "wide_floats.glsl"
#endif

layout(local_size_x = 128) in;

layout(constant_id = 0) const uint DT = 0;    // q, k, v, y: 0 f32, 3 f16, 4 bf16, 13 f8 (F64: f64)
layout(constant_id = 1) const uint MDT = 99;  // mask: 0 f32, 3 f16, 4 bf16, 13 f8, 9 bool, 10 f64, 99 none
const uint DT_F32 = 0, DT_F16 = 3, DT_BF16 = 4, DT_BOOL = 9, DT_F64 = 10, NO_MASK = 99;
#if defined(F64)
const uint TILE = 512;  // f64 scores: the shared arrays stay within 16 KiB
#else
const uint TILE = 1024;
#endif
const uint THREADS = 128, MAX_D = 1024, COLS = MAX_D / THREADS;

// p: Tq, Tk, D, Dv, batches, causal, scale (f32 bits; F64: f64 bits in 6 and 10), mask row
// stride, mask column stride, y element offset, -, ..., then per batch (q, k, v, mask element
// offsets) from 16.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer Q { uint q[]; };
layout(std430, binding = 2) readonly buffer K { uint k[]; };
layout(std430, binding = 3) readonly buffer V { uint v[]; };
layout(std430, binding = 4) readonly buffer M { uint mk[]; };
layout(std430, binding = 5) buffer Y { uint y[]; };

#if defined(F64)
#define real double
#define LOAD(buf, e) LOAD_F64(buf, e)
void store(uint e, double val) STORE_F64(y, e, val)
double exp_r(double v) { return exp_any_f64(v); }
double scale_setting() { return packDouble2x32(uvec2(p[6], p[10])); }
double nan_r() { return nan_f64(); }
bool is_nan_r(double v) { return is_nan_f64(v); }
#else
#define real float
#define LOAD(buf, e) widen_float(RAW_AT(buf, e, float_bytes(DT)), DT)
void store(uint e, float val) {
  if (DT == DT_F32) {
    y[e] = floatBitsToUint(val);
    return;
  }
  const uint bytes = float_bytes(DT), per = 4u / bytes, shift = (e % per) * 8u * bytes;
  atomicAnd(y[e / per], ~(((1u << (8u * bytes)) - 1u) << shift));
  atomicOr(y[e / per], narrow_float(val, DT) << shift);
}
float exp_r(float v) { return exp(v); }
float scale_setting() { return uintBitsToFloat(p[6]); }
float nan_r() { return uintBitsToFloat(0x7fc00000u); }
bool is_nan_r(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }
#endif

shared real qs[MAX_D];
shared real scores[TILE];
shared real red[THREADS];
shared uint nan_seen;

// The additive mask value of element e, or false in `keep` for a masked-out key.
real mask_at(uint e, out bool keep) {
  keep = true;
  if (MDT == NO_MASK) return real(0.0);
  if (MDT == DT_BOOL) {
    keep = ((mk[e >> 2] >> ((e & 3u) * 8u)) & 0xffu) != 0u;
    return real(0.0);
  }
  // A float mask is added (a -inf score weighs 0, a NaN one makes the row NaN).
#if defined(F64) || defined(MASK_F64)
  if (MDT == DT_F64) return real(LOAD_F64(mk, e));
#endif
  return real(widen_float(RAW_AT(mk, e, float_bytes(MDT)), MDT));
}

real reduce(real x, bool take_max) {
  const uint t = gl_LocalInvocationID.x;
  red[t] = x;
  barrier();
  for (uint s = THREADS / 2u; s > 0u; s >>= 1) {
    if (t < s) red[t] = take_max ? max(red[t], red[t + s]) : red[t] + red[t + s];
    barrier();
  }
  const real r = red[0];
  barrier();
  return r;
}

void main() {
  const uint Tq = p[0], Tk = p[1], D = p[2], Dv = p[3], t = gl_LocalInvocationID.x;
  const real scale = scale_setting();
  const real NEG_INF = real(uintBitsToFloat(0xff800000u));
  for (uint b = gl_WorkGroupID.y; b < p[4]; b += gl_NumWorkGroups.y) {
    const uint qb = p[16u + 4u * b], kb = p[17u + 4u * b], vb = p[18u + 4u * b];
    const uint mb = p[19u + 4u * b];
    for (uint i = gl_WorkGroupID.x; i < Tq; i += gl_NumWorkGroups.x) {
      for (uint d = t; d < D; d += THREADS) qs[d] = LOAD(q, qb + i * D + d);
      if (t == 0u) nan_seen = 0u;
      barrier();
      // Keys j <= last are visible (causal); all of them otherwise.
      const int last = p[5] != 0u ? int(i) + int(Tk) - int(Tq) : int(Tk) - 1;
      real m = NEG_INF, total = real(0.0);
      real acc[COLS];
      for (uint c = 0u; c < COLS; ++c) acc[c] = 0.0;
      for (uint j0 = 0u; j0 < Tk && int(j0) <= last; j0 += TILE) {
        const uint n = min(TILE, Tk - j0);
        real tile_max = NEG_INF;
        for (uint jj = t; jj < n; jj += THREADS) {
          const uint j = j0 + jj;
          bool keep = int(j) <= last;
          real s = NEG_INF;
          if (keep) {
            const real add = mask_at(mb + i * p[7] + j * p[8], keep);
            real dot = real(0.0);
            for (uint d = 0u; d < D; ++d) dot += qs[d] * LOAD(k, kb + j * D + d);
            if (keep) s = dot * scale + add;
            if (keep && is_nan_r(s)) {
              nan_seen = 1u;
              s = NEG_INF;  // the row ends up NaN; keep the softmax arithmetic finite
            }
          }
          scores[jj] = s;
          tile_max = max(tile_max, s);
        }
        const real new_m = max(m, reduce(tile_max, true));
        if (new_m == NEG_INF) continue;  // nothing visible yet (uniform: from shared memory)
        const real rescale = m == NEG_INF ? real(0.0) : exp_r(m - new_m);
        m = new_m;
        real part = real(0.0);
        for (uint jj = t; jj < n; jj += THREADS) {
          const real e = scores[jj] == NEG_INF ? real(0.0) : exp_r(scores[jj] - m);
          scores[jj] = e;
          part += e;
        }
        total = total * rescale + reduce(part, false);  // the barrier publishes scores[]
        for (uint c = 0u; c < COLS; ++c) {
          const uint col = t + c * THREADS;
          if (col >= Dv) break;
          real sum = real(0.0);
          for (uint jj = 0u; jj < n; ++jj) {
            const real e = scores[jj];
            if (e != 0.0) sum += e * LOAD(v, vb + (j0 + jj) * Dv + col);
          }
          acc[c] = acc[c] * rescale + sum;
        }
        barrier();  // scores[] is rewritten by the next tile
      }
      for (uint c = 0u; c < COLS; ++c) {
        const uint col = t + c * THREADS;
        if (col >= Dv) break;
        const real r = nan_seen != 0u ? nan_r() : total > 0.0 ? acc[c] / total : real(0.0);
        store(p[9] + (b * Tq + i) * Dv + col, r);
      }
      barrier();  // qs[] is rewritten for the next row
    }
  }
}
