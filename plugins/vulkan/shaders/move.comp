// Moving data, bit-exact, for elements of 1, 2, 4, 8, 16, 32 or 64 bits (EBITS; the packed
// dtypes LSB-first, as the host stores them): strided copies (reshape, transpose, slice with any
// steps, concat of up to four sources a dispatch), gather and pad. Each output element finds its
// source element through per-source strides over the output's coordinates. One invocation
// writes one output word (a 64-bit element: two words); a word shared with a neighbouring
// tensor, or holding elements another concat dispatch writes, is updated with atomics, leaving
// the other bits alone.
#version 450

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint MODE = 0;   // 0 strided copy / concat, 1 gather, 2 pad
layout(constant_id = 1) const uint EBITS = 32;  // bits per element
const uint MODE_COPY = 0, MODE_GATHER = 1, MODE_PAD = 2;
const uint MAX_RANK = 8;

// p: count, rank, y element offset, sources, axis, pad mode, pad value (two words), index
// offset and width (gather), -, -, -, -, -, -; out dims from 16; per source j from
// 24 + 11 j: element offset (int), axis range [lo, hi), strides (int) per dim; pad (dim, begin)
// pairs from 68.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer S0 { uint s0[]; };
layout(std430, binding = 2) readonly buffer S1 { uint s1[]; };  // gather: the indices
layout(std430, binding = 3) readonly buffer S2 { uint s2[]; };
layout(std430, binding = 4) readonly buffer S3 { uint s3[]; };
layout(std430, binding = 6) buffer Y { uint y[]; };

uint word_of(uint j, uint k) {
  if (j == 0u) return s0[k];
  if (j == 1u) return s1[k];
  if (j == 2u) return s2[k];
  return s3[k];
}

const uint PER = EBITS >= 32u ? 1u : 32u / EBITS;  // elements a word
const uint EMASK = EBITS >= 32u ? 0xffffffffu : (1u << EBITS) - 1u;

// Element k of source j: its bits, the high word second for 64-bit elements.
uvec2 load(uint j, uint k) {
  if (EBITS == 64u) return uvec2(word_of(j, 2u * k), word_of(j, 2u * k + 1u));
  if (EBITS == 32u) return uvec2(word_of(j, k), 0u);
  return uvec2((word_of(j, k / PER) >> ((k % PER) * EBITS)) & EMASK, 0u);
}

uint block(uint j) { return 24u + 11u * j; }

// The value of output element i, or false in `ours` when another dispatch writes it.
uvec2 element(uint i, out bool ours) {
  ours = true;
  const uint rank = p[1];
  uint c[MAX_RANK];
  uint rest = i;
  for (int d = int(rank) - 1; d >= 0; --d) {
    c[d] = rest % p[16u + uint(d)];
    rest /= p[16u + uint(d)];
  }
  if (MODE == MODE_GATHER) {  // dims (outer, index, inner): p[4] = axis size
    const uint q = c[1];
    const uint iw = p[9] == 64u ? 2u * q : q;
    int idx = int(s1[p[8] + iw]);  // i64: the low word (checked on the host)
    if (idx < 0) idx += int(p[4]);
    const uint k = uint(int(p[24]) + (int(c[0]) * int(p[4]) + idx) * int(p[18]) + int(c[2]));
    return load(0u, k);
  }
  if (MODE == MODE_PAD) {
    int k = int(p[24]);
    for (uint d = 0u; d < rank; ++d) {
      const int n = int(p[68u + 2u * d]);
      int x = int(c[d]) - int(p[69u + 2u * d]);
      if (x < 0 || x >= n) {
        if (p[5] == 0u) return uvec2(p[6], p[7]);      // constant
        if (p[5] == 1u) x = x < 0 ? -x : 2 * (n - 1) - x;  // reflect (pads < n)
        else x = clamp(x, 0, n - 1);                     // edge
      }
      k += x * int(p[27u + d]);
    }
    return load(0u, uint(k));
  }
  uint j = 0u;
  const uint a = c[p[4]];
  while (j + 1u < p[3] && a >= p[block(j) + 2u]) ++j;
  if (a < p[block(j) + 1u] || a >= p[block(j) + 2u]) {
    ours = false;
    return uvec2(0u);
  }
  int k = int(p[block(j)]);
  for (uint d = 0u; d < rank; ++d) k += int(c[d]) * int(p[block(j) + 3u + d]);
  return load(j, uint(k));
}

void main() {
  const uint first = p[2], end = p[2] + p[0];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (EBITS == 64u) {
    for (uint i = gl_GlobalInvocationID.x; i < p[0]; i += stride) {
      bool ours;
      const uvec2 v = element(i, ours);
      if (ours) {
        y[2u * (first + i)] = v.x;
        y[2u * (first + i) + 1u] = v.y;
      }
    }
    return;
  }
  const uint per = PER, bits_per = EBITS;
  const uint w0 = first / per, words = (end + per - 1u) / per - w0;
  for (uint j = gl_GlobalInvocationID.x; j < words; j += stride) {
    const uint w = w0 + j;
    uint bits = 0u, keep = 0u;
    for (uint k = 0u; k < per; ++k) {
      const uint g = w * per + k, shift = k * bits_per;
      const uint m = per == 1u ? 0xffffffffu : ((1u << bits_per) - 1u) << shift;
      bool ours = g >= first && g < end;
      if (ours) {
        const uvec2 v = element(g - first, ours);
        bits |= (v.x << shift) & m;
      }
      if (!ours) keep |= m;
    }
    if (keep == 0u) {
      y[w] = bits;
    } else if (keep != 0xffffffffu) {
      atomicAnd(y[w], keep);
      atomicOr(y[w], bits);
    }
  }
}
