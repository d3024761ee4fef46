// The layers of ops-nn.md on (N, C, H, W) tensors, 1-D ones as H = 1: conv (strides, pads,
// dilations, groups, optional bias), max_pool, avg_pool and batch_norm, for f32, f16, bf16 and
// f8 computing in f32, and with -DF64 for f64 computing in f64; conv also for i8/u8 (wrapping
// sums), max_pool also for the integers (packed too), bool and bitset, and for every 8-byte type
// in either build (it compares bits, exactly; 8-byte ones as word pairs). One invocation per
// output element; results narrower than a word are written with atomics.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#if defined(F64)
#include "wide_floats.glsl"
#endif

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint OP = 0;  // 0 conv, 1 max_pool, 2 avg_pool, 3 batch_norm
layout(constant_id = 1) const uint DT = 0;  // ew.comp's dtype codes
// conv accumulating (acc=) i8/u8 into i32/u32: the output's and the bias's codes (99: x's).
layout(constant_id = 2) const uint DT_ACC = 99;
layout(constant_id = 3) const uint DT_BIAS = 99;
const uint OP_CONV = 0, OP_MAX_POOL = 1, OP_AVG_POOL = 2, OP_BATCH_NORM = 3;
const uint DT_F32 = 0, DT_I32 = 1, DT_U32 = 2, DT_F16 = 3, DT_BF16 = 4, DT_I16 = 5, DT_U16 = 6,
           DT_I8 = 7, DT_F64 = 10, DT_I64 = 11, DT_U64 = 12, DT_F8 = 13;
const uint DT_I4 = 14, DT_I2 = 15, DT_I1 = 16, DT_U4 = 17, DT_U2 = 18, DT_U1 = 19;
// Bits an element (the packed integers LSB-first; only max_pool takes them).
const uint BITS = (DT >= DT_F64 && DT <= DT_U64) ? 64u
                  : DT <= DT_U32                 ? 32u
                  : DT <= DT_U16                 ? 16u
                  : (DT <= 9u || DT == DT_F8)    ? 8u  // 9: bool
                  : (DT == DT_I4 || DT == DT_U4) ? 4u
                  : (DT == DT_I2 || DT == DT_U2) ? 2u
                                                 : 1u;
const bool FLOAT = DT == DT_F32 || DT == DT_F16 || DT == DT_BF16 || DT == DT_F64 || DT == DT_F8;
const bool SIGNED = DT == DT_I32 || DT == DT_I16 || DT == DT_I8 || DT == DT_I64 || DT == DT_I4 ||
                    DT == DT_I2 || DT == DT_I1;

// p: count, N, C, H, W, OC, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, group, flags (1 bias,
// 2 count_include_pad), x / w / b / y element offsets, epsilon (f32 bits), var / mean element
// offsets, pad end H, pad end W, epsilon's high word (f64: 22 and 27 hold its bits).
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer X { uint x[]; };
layout(std430, binding = 2) readonly buffer W { uint w[]; };      // batch_norm: scale
layout(std430, binding = 3) readonly buffer Bias { uint bs[]; };  // batch_norm: bias
layout(std430, binding = 4) readonly buffer Mean { uint mn[]; };
layout(std430, binding = 5) readonly buffer Var { uint vr[]; };
layout(std430, binding = 6) buffer Y { uint y[]; };

#define RAW(buf, k)                                                                       \
  (BITS == 32u ? buf[k]                                                                   \
               : (buf[(k) / (32u / BITS)] >> (((k) % (32u / BITS)) * BITS)) & ((1u << BITS) - 1u))
#if defined(F64)
#define real double
#define LOADF(buf, k) LOAD_F64(buf, k)
void store(uint k, double v) STORE_F64(y, k, v)
double inv_sqrt_r(double v) { return 1.0LF / sqrt_any_f64(v); }
double epsilon() { return packDouble2x32(uvec2(p[22], p[27])); }
#else
#define real float
#define LOADF(buf, k) widen_float(RAW(buf, k), DT)
float inv_sqrt_r(float v) { return 1.0 / sqrt(v); }
float epsilon() { return uintBitsToFloat(p[22]); }
#endif

// An 8-byte element as an unsigned key in the element's order (hi, lo): floats with -0 below +0.
uvec2 key64(uint k) {
  uvec2 v = uvec2(x[2u * k + 1u], x[2u * k]);
  if (DT == DT_I64) v.x ^= 0x80000000u;
  if (DT == DT_F64) v = (v.x & 0x80000000u) != 0u ? ~v : uvec2(v.x | 0x80000000u, v.y);
  return v;
}
bool is_nan64(uint k) {
  const uint hi = x[2u * k + 1u] & 0x7fffffffu;
  return DT == DT_F64 && (hi > 0x7ff00000u || (hi == 0x7ff00000u && x[2u * k] != 0u));
}
bool above(uvec2 a, uvec2 b) { return a.x > b.x || (a.x == b.x && a.y > b.y); }

void store_raw(uint k, uint bits) {
  if (BITS == 32u) {
    y[k] = bits;
    return;
  }
  const uint per = 32u / BITS, shift = (k % per) * BITS;
  const uint m = ((1u << BITS) - 1u) << shift;
  atomicAnd(y[k / per], ~m);
  atomicOr(y[k / per], (bits << shift) & m);
}
#if !defined(F64)
void store(uint k, float v) {
  store_raw(k, narrow_float(v, DT));
}
#endif

// An integer element's value as 32 bits, sign-extended for the signed dtypes.
uint widen_int(uint b) { return SIGNED && BITS < 32u ? uint(int(b << (32u - BITS)) >> (32u - BITS)) : b; }

int order_key(uint b) {  // floats: -0 below +0; integers: their value
  if (FLOAT) {
    const uint f = floatBitsToUint(widen_float(b, DT));
    return (f & 0x80000000u) != 0u ? -int(f & 0x7fffffffu) - 1 : int(f);
  }
  return SIGNED ? int(b << (32u - BITS)) >> (32u - BITS) : int(b ^ 0x80000000u);
}
bool is_nan(uint b) {
  if (!FLOAT) return false;
  const uint f = floatBitsToUint(widen_float(b, DT));
  return (f & 0x7fffffffu) > 0x7f800000u;
}

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint C = p[2], H = p[3], W = p[4], OC = p[5], OH = p[6], OW = p[7];
  const uint x0 = p[18], w0 = p[19], b0 = p[20], y0 = p[21];
  for (uint i = gl_GlobalInvocationID.x; i < p[0]; i += stride) {
    if (OP == OP_BATCH_NORM) {  // x is (N, C, rest): H * W = rest
      const uint c = (i / (H * W)) % C;
      const real inv = inv_sqrt_r(LOADF(vr, p[23] + c) + epsilon());
      store(y0 + i, (LOADF(x, x0 + i) - LOADF(mn, p[24] + c)) * inv * LOADF(w, w0 + c) +
                        LOADF(bs, b0 + c));
      continue;
    }
    const uint ow = i % OW, oh = (i / OW) % OH, oc = (i / (OW * OH)) % OC, n = i / (OW * OH * OC);
    const int ih0 = int(oh * p[10]) - int(p[12]), iw0 = int(ow * p[11]) - int(p[13]);
    if (OP == OP_CONV) {
      const uint cg = C / p[16], ocg = OC / p[16], g = oc / ocg;
      real acc = (p[17] & 1u) != 0u && FLOAT ? LOADF(bs, b0 + oc) : real(0.0);
      // integers (i8, u8): wrapping sums of the exactly widened products, the output's low bits
      // kept (the x width, or the acc= width)
      uint iacc = 0u;
      if ((p[17] & 1u) != 0u && !FLOAT) {
        iacc = DT_BIAS != 99u && DT_BIAS != DT ? bs[b0 + oc] : widen_int(RAW(bs, b0 + oc));
      }
      for (uint ic = 0u; ic < cg; ++ic) {
        const uint xc = x0 + (n * C + g * cg + ic) * H * W;
        const uint wc = w0 + (oc * cg + ic) * p[8] * p[9];
        for (uint kh = 0u; kh < p[8]; ++kh) {
          const int ih = ih0 + int(kh * p[14]);
          if (ih < 0 || ih >= int(H)) continue;
          for (uint kw = 0u; kw < p[9]; ++kw) {
            const int iw = iw0 + int(kw * p[15]);
            if (iw < 0 || iw >= int(W)) continue;
            const uint xk = xc + uint(ih) * W + uint(iw), wk = wc + kh * p[9] + kw;
            if (FLOAT) {
              acc += LOADF(x, xk) * LOADF(w, wk);
            } else {
              iacc += widen_int(RAW(x, xk)) * widen_int(RAW(w, wk));
            }
          }
        }
      }
      if (FLOAT) {
        store(y0 + i, acc);
      } else if (DT_ACC != 99u) {
        y[y0 + i] = iacc;  // i32/u32
      } else {
        store_raw(y0 + i, iacc);
      }
      continue;
    }
    const uint xc = x0 + (n * C + oc) * H * W;  // pools: OC = C
    if (OP == OP_MAX_POOL && BITS == 64u) {
      uint best = 0u;
      bool any = false;
      for (uint kh = 0u; kh < p[8]; ++kh) {
        const int ih = ih0 + int(kh * p[14]);
        if (ih < 0 || ih >= int(H)) continue;
        for (uint kw = 0u; kw < p[9]; ++kw) {
          const int iw = iw0 + int(kw * p[15]);
          if (iw < 0 || iw >= int(W)) continue;
          const uint at = xc + uint(ih) * W + uint(iw);
          if (!any || (!is_nan64(best) && (is_nan64(at) || above(key64(at), key64(best))))) {
            best = at;
          }
          any = true;
        }
      }
      y[2u * (y0 + i)] = x[2u * best];
      y[2u * (y0 + i) + 1u] = x[2u * best + 1u];
      continue;
    }
    if (OP == OP_MAX_POOL) {
      uint best = 0u;
      bool any = false;
      for (uint kh = 0u; kh < p[8]; ++kh) {
        const int ih = ih0 + int(kh * p[14]);
        if (ih < 0 || ih >= int(H)) continue;
        for (uint kw = 0u; kw < p[9]; ++kw) {
          const int iw = iw0 + int(kw * p[15]);
          if (iw < 0 || iw >= int(W)) continue;
          const uint v = RAW(x, xc + uint(ih) * W + uint(iw));
          if (!any || (!is_nan(best) && (is_nan(v) || order_key(v) > order_key(best)))) best = v;
          any = true;
        }
      }
      store_raw(y0 + i, best);
      continue;
    }
    real sum = 0.0;  // avg_pool
    uint cells = 0u;
    for (uint kh = 0u; kh < p[8]; ++kh) {
      const int ih = ih0 + int(kh);
      if (ih < 0 || ih >= int(H)) continue;
      for (uint kw = 0u; kw < p[9]; ++kw) {
        const int iw = iw0 + int(kw);
        if (iw < 0 || iw >= int(W)) continue;
        sum += LOADF(x, xc + uint(ih) * W + uint(iw));
        ++cells;
      }
    }
    if ((p[17] & 2u) != 0u) {  // padded cells count, cells beyond the pads do not
      const int h_lo = max(ih0, -int(p[12])), h_hi = min(ih0 + int(p[8]), int(H + p[25]));
      const int w_lo = max(iw0, -int(p[13])), w_hi = min(iw0 + int(p[9]), int(W + p[26]));
      cells = uint(max(h_hi - h_lo, 0) * max(w_hi - w_lo, 0));
    }
    store(y0 + i, sum / real(cells));
  }
}
