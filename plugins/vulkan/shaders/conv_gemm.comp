// conv as an implicit GEMM (kernels/conv_fast.cpp picks it for f32, f16, bf16 and f8, computing
// in f32): per group g, Y[M x P] = W[M x K] * X'[K x P] + bias, with M the group's output
// channels, P = N * OH * OW output pixels and K = C/group * KH * KW; X' (the patch matrix) is
// never stored: each slice of it is gathered from x as it is staged (0 for padded cells).
//
// A workgroup computes a BM x BN output tile with KS parts of (BM/TM)*(BN/TN) invocations, each
// invocation TM x TN outputs (matmul_tiled.comp's layout: rows (i * TY + ty) * 4 + 0..3, columns
// (j * TX + tx) * 4 + 0..3, so a k step reads TM/4 + TN/4 vec4s of shared memory). A slice holds
// KS * BK values of k; part q multiplies its BK of them, so small problems still get enough
// invocations, and the parts' sums are added in shared memory at the end (in part order: the
// result does not depend on timing). The shared tiles are double buffered: slice s + 1 is read
// into registers while slice s is multiplied, then stored, with one barrier a slice.
//
// Staging: W's rows are contiguous in k (consecutive invocations read consecutive k); X' rows
// are read along the pixels (consecutive invocations read consecutive output columns, so
// stride-1 convs read consecutive words). Each invocation keeps one pixel column for the whole
// K loop (WG is a multiple of BN). What a k means in x (the channel's and the tap's offset, the
// tap's row and column shifts) is the same for every pixel: the first BKT invocations work it
// out for the next slice (multiply-shift division by host-computed magic numbers) while the
// current one is stored, into a double-buffered table in shared memory. Rows past M, columns
// past P and k past K are staged as 0 and never stored.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "float_controls.glsl"
#include "half_formats.glsl"

layout(constant_id = 0) const uint BM = 64;
layout(constant_id = 1) const uint BN = 64;
layout(constant_id = 2) const uint BK = 16;  // k values of a slice each part multiplies
layout(constant_id = 3) const uint TM = 4;   // a multiple of 4
layout(constant_id = 4) const uint TN = 4;   // a multiple of 4
layout(constant_id = 5) const uint KS = 1;   // parts splitting each slice's k
layout(constant_id = 6) const uint WG = 256;  // KS * (BM / TM) * (BN / TN), a multiple of BN
layout(constant_id = 7) const uint DT = 0;    // 0 f32, 3 f16, 4 bf16, 13 f8 (half_formats.glsl)
layout(local_size_x_id = 6) in;

// p: P, M (a group's output channels), K, C, H, W, OC, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW,
// C/group, flags (1: bias), x / w / b / y element offsets, magic and shift dividing by KH*KW,
// magic and shift dividing by KW (magic 0: the divisor is 1).
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
// restrict: y never overlaps the operands (conv runs in normal mode only), so reads of them may
// take the read-only cache path.
layout(std430, binding = 1) restrict readonly buffer X { uint x[]; };
layout(std430, binding = 2) restrict readonly buffer Wt { uint w[]; };
layout(std430, binding = 3) restrict readonly buffer Bias { uint bs[]; };
layout(std430, binding = 4) buffer Y { uint y[]; };

const uint TX = BN / TN, TY = BM / TM, PT = TX * TY;  // PT: invocations a part
const uint BKT = KS * BK;                             // k values a slice
const uint AS4 = BM / 4 + 1;  // a k row of W's tile, in vec4s (padded: transposing stores)
const uint BS4 = BN / 4;
const uint LA = BM * BKT / WG, LB = BN * BKT / WG;  // elements each invocation stages a slice
const uint A_SIZE = 2 * BKT * AS4, B_SIZE = 2 * BKT * BS4;
const uint RED_SIZE = KS > 1 ? KS * BM * BN / 4 : 0;  // the parts' sums, after the K loop
const uint TILES_SIZE = A_SIZE + B_SIZE;
// Bits, not floats: moving them through shared memory never flushes a subnormal.
shared uvec4 sm[TILES_SIZE > RED_SIZE ? TILES_SIZE : RED_SIZE];
shared uvec4 ktab[2 * BKT];  // per slice and k: x offset, row shift, column shift

const uint BYTES = DT == 0u ? 4u : DT == 13u ? 1u : 2u;

uint load_bits(uint k, bool weights) {
  if (DT == 0u) return weights ? w[k] : x[k];
  const uint raw = weights ? RAW_AT(w, k, BYTES) : RAW_AT(x, k, BYTES);
  return floatBitsToUint(widen_float(raw, DT));
}
float load_bias(uint k) {
  return DT == 0u ? uintBitsToFloat(bs[k]) : widen_float(RAW_AT(bs, k, BYTES), DT);
}

uint div_magic(uint n, uint magic, uint shift) {
  if (magic == 0u) return n;
  uint hi, lo;
  umulExtended(n, magic, hi, lo);
  return hi >> shift;
}

// Slice `slice`'s table entry for k = slice * BKT + kk, into buffer slice & 1.
void fill_ktab(uint slice, uint kk, uint K, uint KHW, uint KW, uint HW, uint W, uint DH, uint DW,
               uint magic_taps, uint shift_taps, uint magic_kw, uint shift_kw) {
  const uint k = slice * BKT + kk;
  if (k >= K) return;
  const uint c = div_magic(k, magic_taps, shift_taps), tap = k - c * KHW;
  const uint kh = div_magic(tap, magic_kw, shift_kw), kw = tap - kh * KW;
  ktab[(slice & 1u) * BKT + kk] = uvec4(c * HW + kh * DH * W + kw * DW, kh * DH, kw * DW, 0u);
}

void store(uint k, float v) {
  if (DT == 0u) {
    y[k] = floatBitsToUint(v);
    return;
  }
  const uint per = 4u / BYTES, shift = (k % per) * 8u * BYTES;
  const uint m = (BYTES == 1u ? 0xffu : 0xffffu) << shift;
  atomicAnd(y[k / per], ~m);
  atomicOr(y[k / per], (narrow_float(v, DT) << shift) & m);
}

void main() {
  const uint P = p[0], M = p[1], K = p[2], C = p[3], H = p[4], W = p[5], OC = p[6];
  const uint OHW = p[7] * p[8], OW = p[8], KW = p[10];
  const uint SH = p[11], SW = p[12], PH = p[13], PW = p[14], DH = p[15], DW = p[16];
  const uint CG = p[17], KHW = p[9] * KW;
  const uint x0 = p[19], w0 = p[20], b0 = p[21], y0 = p[22];
  const uint magic_taps = p[23], shift_taps = p[24], magic_kw = p[25], shift_kw = p[26];

  const uint t = gl_LocalInvocationIndex;
  const uint part = t / PT, lt = t % PT, tx = lt % TX, ty = lt / TX;
  const uint g = gl_WorkGroupID.z;
  const uint m0 = gl_WorkGroupID.y * BM, n0 = gl_WorkGroupID.x * BN;

  // The pixel column this invocation stages: its image, and its window's top-left corner.
  const uint pix = n0 + t % BN;
  const bool pix_ok = pix < P;
  const uint img = pix_ok ? pix / OHW : 0u, rest = pix - img * OHW;
  const uint oh = rest / OW, ow = rest - oh * OW;
  const int ih0 = int(oh * SH) - int(PH), iw0 = int(ow * SW) - int(PW);
  // x's index of the window's top-left cell (maybe outside x: only read with a tap inside)
  const int x_corner = int(x0 + (img * C + g * CG) * H * W) + ih0 * int(W) + iw0;
  const uint w_base = w0 + g * M * K;
  const uint slices = (K + BKT - 1u) / BKT;

  uint ra[LA], rb[LB];
  vec4 acc[TM][TN / 4];
  [[unroll]] for (uint i = 0u; i < TM; ++i)
    [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) acc[i][j] = vec4(0.0);

  if (t < BKT) {
    fill_ktab(0u, t, K, KHW, KW, H * W, W, DH, DW, magic_taps, shift_taps, magic_kw, shift_kw);
  }
  barrier();
  for (uint s = 0u; s <= slices; ++s) {
    const uint cur = (s + 1u) & 1u;  // slice s - 1 is in buffer cur, slice s goes to cur ^ 1
    if (s < slices) {  // read slice s into registers
      const uint k0 = s * BKT;
      [[unroll]] for (uint r = 0u; r < LA; ++r) {
        const uint e = r * WG + t, row = m0 + e / BKT, k = k0 + e % BKT;
        ra[r] = row < M && k < K ? load_bits(w_base + row * K + k, true) : 0u;
      }
      [[unroll]] for (uint r = 0u; r < LB; ++r) {
        const uint kk = r * (WG / BN) + t / BN;
        uint v = 0u;
        if (pix_ok && k0 + kk < K) {
          const uvec4 e = ktab[(s & 1u) * BKT + kk];
          if (uint(ih0 + int(e.y)) < H && uint(iw0 + int(e.z)) < W) {
            v = load_bits(uint(x_corner + int(e.x)), false);
          }
        }
        rb[r] = v;
      }
    }
    if (s > 0u) {  // multiply this part's k of slice s - 1
      const uint a_at = (cur * BKT + part * BK) * AS4;
      const uint b_at = A_SIZE + (cur * BKT + part * BK) * BS4;
      [[unroll]] for (uint k = 0u; k < BK; ++k) {
        vec4 av[TM / 4], bv[TN / 4];
        [[unroll]] for (uint i = 0u; i < TM / 4u; ++i)
          av[i] = uintBitsToFloat(sm[a_at + k * AS4 + i * TY + ty]);
        [[unroll]] for (uint j = 0u; j < TN / 4u; ++j)
          bv[j] = uintBitsToFloat(sm[b_at + k * BS4 + j * TX + tx]);
        [[unroll]] for (uint i = 0u; i < TM / 4u; ++i)
          [[unroll]] for (uint ii = 0u; ii < 4u; ++ii)
            [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) acc[4u * i + ii][j] += av[i][ii] * bv[j];
      }
    }
    if (s < slices) {  // store slice s into the other buffer: read by all a barrier ago
      const uint nxt = cur ^ 1u;
      if (t < BKT) {  // and the next slice's table: this one's is still being read
        fill_ktab(s + 1u, t, K, KHW, KW, H * W, W, DH, DW, magic_taps, shift_taps, magic_kw,
                  shift_kw);
      }
      [[unroll]] for (uint r = 0u; r < LA; ++r) {
        const uint e = r * WG + t, m = e / BKT;
        sm[(nxt * BKT + e % BKT) * AS4 + m / 4u][m % 4u] = ra[r];
      }
      [[unroll]] for (uint r = 0u; r < LB; ++r) {
        const uint kk = r * (WG / BN) + t / BN, n = t % BN;
        sm[A_SIZE + (nxt * BKT + kk) * BS4 + n / 4u][n % 4u] = rb[r];
      }
    }
    barrier();
  }

  const bool bias = (p[18] & 1u) != 0u;
  if (KS == 1u) {  // each invocation stores its own outputs
    [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) {
      [[unroll]] for (uint jj = 0u; jj < 4u; ++jj) {
        const uint col = n0 + (j * TX + tx) * 4u + jj;
        if (col >= P) continue;
        const uint im = col / OHW, y_col = y0 + im * OC * OHW + (col - im * OHW);
        [[unroll]] for (uint i = 0u; i < TM / 4u; ++i) {
          [[unroll]] for (uint ii = 0u; ii < 4u; ++ii) {
            const uint row = m0 + (i * TY + ty) * 4u + ii;
            if (row >= M) continue;
            const uint oc = g * M + row;
            const float b = bias ? load_bias(b0 + oc) : 0.0;
            store(y_col + oc * OHW, acc[4u * i + ii][j][jj] + b);
          }
        }
      }
    }
    return;
  }
  // KS parts: each writes its sums, then every invocation adds the parts of a few outputs (in
  // part order) and stores them, consecutive invocations consecutive pixels.
  [[unroll]] for (uint i = 0u; i < TM / 4u; ++i) {
    [[unroll]] for (uint ii = 0u; ii < 4u; ++ii) {
      const uint row = (i * TY + ty) * 4u + ii;
      [[unroll]] for (uint j = 0u; j < TN / 4u; ++j)
        sm[(part * BM + row) * BS4 + j * TX + tx] = floatBitsToUint(acc[4u * i + ii][j]);
    }
  }
  barrier();
  [[unroll]] for (uint r = 0u; r < BM * BN / WG; ++r) {
    const uint e = r * WG + t, row = e / BN, n = e % BN, col = n0 + n;
    if (m0 + row >= M || col >= P) continue;
    float sum = 0.0;
    [[unroll]] for (uint q = 0u; q < KS; ++q)
      sum += uintBitsToFloat(sm[(q * BM + row) * BS4 + n / 4u][n % 4u]);
    const uint oc = g * M + m0 + row, im = col / OHW;
    const float b = bias ? load_bias(b0 + oc) : 0.0;
    store(y0 + (im * OC + oc) * OHW + (col - im * OHW), sum + b);
  }
}
