// What the fast attention shaders share (attention_flash.comp: many query rows;
// attention_split.comp + attention_combine.comp: few rows, keys split in chunks): the params of
// attention.comp, the buffers, 4-element loads, the mask and the output store. q, k, v and y are
// f32, f16, bf16 or f8 (DT, ew.comp codes), all computed in f32.
#ifndef OPENINFER_ATTENTION_FAST_GLSL
#define OPENINFER_ATTENTION_FAST_GLSL

layout(constant_id = 0) const uint DT = 0;    // q, k, v, y: 0 f32, 3 f16, 4 bf16, 13 f8
layout(constant_id = 1) const uint MDT = 99;  // mask: 0 f32, 3 f16, 4 bf16, 13 f8, 9 bool, 99 none
// 1: D, Dv and every q/k/v matrix start multiples of 4 elements: a quad in one load (16 bytes
// of f32, 8 of f16 or bf16).
layout(constant_id = 2) const uint VEC4 = 0;
const uint DT_BOOL = 9, NO_MASK = 99;

// p: Tq, Tk, D, Dv, batches, causal, scale (f32 bits), mask row stride, mask column stride, y
// element offset, chunks (split), partial stride in floats (split), 1 where the split shader
// writes y itself (one chunk), -, -, -, then per batch (q, k, v, mask element offsets) from 16.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
// Each data buffer three times: as words (any dtype), 8-byte and 16-byte quads (VEC4).
layout(std430, binding = 1) readonly buffer Q { uint q[]; };
layout(std430, binding = 1) readonly buffer Q2 { uvec2 q2[]; };
layout(std430, binding = 1) readonly buffer Q4 { uvec4 q4[]; };
layout(std430, binding = 2) readonly buffer K { uint k[]; };
layout(std430, binding = 2) readonly buffer K2 { uvec2 k2[]; };
layout(std430, binding = 2) readonly buffer K4 { uvec4 k4[]; };
layout(std430, binding = 3) readonly buffer V { uint v[]; };
layout(std430, binding = 3) readonly buffer V2 { uvec2 v2[]; };
layout(std430, binding = 3) readonly buffer V4 { uvec4 v4[]; };
layout(std430, binding = 4) readonly buffer M { uint mk[]; };
layout(std430, binding = 5) buffer Y { uint y[]; };
// The split shader's partial results: (max, sum, NaN seen, -, Dv sums) per (row, chunk).
layout(std430, binding = 6) buffer Partials { float part[]; };

#define NEG_INF uintBitsToFloat(0xff800000u)
float nan_value() { return uintBitsToFloat(0x7fc00000u); }
// On the bits: without IEEE_SPECIALS a compiler may assume no NaN and fold isnan away.
bool is_nan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }

// The two f16 of a word as f32, exact on any device: the hardware conversion for normals, zeros,
// inf and NaN (a NaN may come back quiet: attention gives NaN rows their own bits anyway), the
// subnormals as m x 2^-24 in integer arithmetic (a device may flush them in the conversion).
// About a third of widen_half's instructions: the f16 split path is bound by them.
vec2 widen_f16_pair(uint w) {
  const vec2 f = unpackHalf2x16(w);
  const uvec2 h = uvec2(w & 0xffffu, w >> 16u);
  const uvec2 tiny =
      floatBitsToUint(vec2(h & 0x3ffu) * 5.9604644775390625e-8) | ((h & 0x8000u) << 16u);
  return mix(f, uintBitsToFloat(tiny), equal(h & 0x7c00u, uvec2(0u)));
}

// Elements 4 * quad .. 4 * quad + 3 of the row starting at element `row` (a multiple of 4 under
// VEC4), 0 past the row's length n.
#define QUAD_LOADER(name, buf, buf2, buf4)                                            \
  vec4 name(uint row, uint quad, uint n) {                                           \
    if (VEC4 != 0u && DT == 0u) return 4u * quad < n ? uintBitsToFloat(buf4[(row >> 2) + quad]) : vec4(0.0); \
    if (VEC4 != 0u && (DT == 3u || DT == 4u)) {                                       \
      if (4u * quad >= n) return vec4(0.0);                                           \
      const uvec2 w = buf2[(row >> 2) + quad];                                        \
      if (DT == 3u) return vec4(widen_f16_pair(w.x), widen_f16_pair(w.y));            \
      return vec4(widen_half(w.x & 0xffffu, DT == 4u), widen_half(w.x >> 16, DT == 4u), \
                  widen_half(w.y & 0xffffu, DT == 4u), widen_half(w.y >> 16, DT == 4u)); \
    }                                                                                 \
    vec4 r = vec4(0.0);                                                               \
    [[unroll]] for (uint c = 0u; c < 4u; ++c) {                                       \
      const uint d = 4u * quad + c;                                                   \
      if (d < n) r[c] = widen_float(RAW_AT(buf, row + d, float_bytes(DT)), DT);       \
    }                                                                                 \
    return r;                                                                         \
  }
QUAD_LOADER(load_q, q, q2, q4)
QUAD_LOADER(load_k, k, k2, k4)
QUAD_LOADER(load_v, v, v2, v4)

// The mask at element e as bits: a bool as 0 / 1, a float mask as its f32 value's bits.
uint mask_bits(uint e) {
  if (MDT == DT_BOOL) return (mk[e >> 2] >> ((e & 3u) * 8u)) & 0xffu;
  return floatBitsToUint(widen_float(RAW_AT(mk, e, float_bytes(MDT)), MDT));
}

// A key's score from its dot product: false in `keep` for a key a bool mask hides; a float
// mask is added (-inf weighs 0; NaN makes the row NaN).
float masked_score(float dot_product, float scale, uint bits, inout bool keep) {
  float add = 0.0;
  if (MDT == DT_BOOL) {
    keep = keep && bits != 0u;
  } else if (MDT != NO_MASK) {
    add = uintBitsToFloat(bits);
  }
  return keep ? dot_product * scale + add : NEG_INF;
}

void store(uint e, float val) {
  if (DT == 0u) {
    y[e] = floatBitsToUint(val);
    return;
  }
  const uint bytes = float_bytes(DT), per = 4u / bytes, shift = (e % per) * 8u * bytes;
  atomicAnd(y[e / per], ~(((1u << (8u * bytes)) - 1u) << shift));
  atomicOr(y[e / per], narrow_float(val, DT) << shift);
}

// The invocation's index with the subgroups laid end to end: lanes that cooperate on one row or
// key (a run of 4 or 8 aligned indices) then share a subgroup on any driver, and subgroup
// shuffles combine them (the host asks for subgroups of at least 8 that divide the workgroup).
uint lane_index() {
  return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
}

#endif
