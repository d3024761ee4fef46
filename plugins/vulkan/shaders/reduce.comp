// Reductions of ops.md over any set of axes, one invocation per output element walking its
// reduced elements in row-major order: sum, prod, mean (floats), max, min, and argmax/argmin
// (one axis, to i64) for the 1- to 32-bit dtypes of ew.comp (f8, packed integers) and i64/u64,
// and is_finite (all axes, to bool). Floats sum in f32 from -0.0, the identity of IEEE addition
// (only -0.0 terms give -0.0; an empty sum is +0.0, ops.md); max/min compare the bits (exact,
// -0 below +0, NaN wins); integers wrap at their width (i64/u64 as word pairs: no shaderInt64
// needed). Built with -DF64 the same for f64, summing in f64.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#if defined(F64)
#include "wide_floats.glsl"
#endif

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint OP = 0;  // values: kernels/reduce_ops.cpp
layout(constant_id = 1) const uint DT = 0;  // ew.comp's dtype codes; 10 f64, 11 i64, 12 u64
// sum/prod/mean accumulating (acc=) into a wider integer: its code (99: none, the input's).
layout(constant_id = 2) const uint DT_ACC = 99;
// 1: one workgroup per output (max/min/argmax/argmin over one long axis, few outputs).
layout(constant_id = 3) const uint ROW_GROUPS = 0;
const uint OP_SUM = 0, OP_PROD = 1, OP_MEAN = 2, OP_MAX = 3, OP_MIN = 4, OP_ARGMAX = 5,
           OP_ARGMIN = 6, OP_ALL_FINITE = 7;
const uint DT_F32 = 0, DT_I32 = 1, DT_U32 = 2, DT_F16 = 3, DT_BF16 = 4, DT_I16 = 5, DT_U16 = 6,
           DT_I8 = 7, DT_U8 = 8, DT_F64 = 10, DT_I64 = 11, DT_U64 = 12, DT_F8 = 13, DT_I4 = 14,
           DT_I2 = 15, DT_I1 = 16, DT_U4 = 17, DT_U2 = 18, DT_U1 = 19;
// Bits an element: 64, 32, 16, 8, then the packed integers (LSB-first).
const uint BITS = (DT >= DT_F64 && DT <= DT_U64) ? 64u
                  : DT <= DT_U32                 ? 32u
                  : DT <= DT_U16                 ? 16u
                  : (DT <= DT_U8 || DT == DT_F8) ? 8u
                  : (DT == DT_I4 || DT == DT_U4) ? 4u
                  : (DT == DT_I2 || DT == DT_U2) ? 2u
                                                 : 1u;
const uint ACC_BITS = (DT_ACC == DT_I64 || DT_ACC == DT_U64) ? 64u
                      : DT_ACC <= DT_U32                   ? 32u
                      : DT_ACC <= DT_U16                   ? 16u
                                                           : 8u;
const uint OUT_BITS = OP == OP_ALL_FINITE ? 8u : OP >= OP_ARGMAX ? 64u : DT_ACC != 99u ? ACC_BITS : BITS;
const bool FLOAT = DT == DT_F32 || DT == DT_F16 || DT == DT_BF16 || DT == DT_F8;
const bool SIGNED =
    DT == DT_I32 || DT == DT_I16 || DT == DT_I8 || DT == DT_I4 || DT == DT_I2 || DT == DT_I1;
const uint MAX_RANK = 8;

// p: outputs, kept rank, reduced rank, reduced count, x / y element offsets, select_first, -;
// kept (dim, stride) pairs from 8, reduced (dim, stride) pairs from 24.
// restrict: the parameters never alias the data, so loads of p[] can leave the loops.
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer X { uint x[]; };
layout(std430, binding = 4) buffer Y { uint y[]; };

uint load_raw(uint k) {
  if (BITS == 32u) return x[k];
  if (BITS < 8u) return (x[k / (32u / BITS)] >> ((k % (32u / BITS)) * BITS)) & ((1u << BITS) - 1u);
  if (BITS == 16u) return (x[k >> 1] >> ((k & 1u) * 16u)) & 0xffffu;
  return (x[k >> 2] >> ((k & 3u) * 8u)) & 0xffu;
}
uint f32_bits(uint raw) {
  return floatBitsToUint(widen_float(raw, DT));
}
int sext(uint v) { return BITS >= 32u ? int(v) : int(v << (32u - BITS)) >> (32u - BITS); }
bool is_nan(uint b) { return (b & 0x7fffffffu) > 0x7f800000u; }
int order_key(uint b) { return (b & 0x80000000u) != 0u ? -int(b & 0x7fffffffu) - 1 : int(b); }
int compare_key(uint b) { return (b & 0x80000000u) != 0u ? -int(b & 0x7fffffffu) : int(b); }
// Integers and float bits as one ordered key: is a below b?
bool less(uint a, uint b, bool signed_zero_order) {
  if (FLOAT) return signed_zero_order ? order_key(a) < order_key(b) : compare_key(a) < compare_key(b);
  return SIGNED ? sext(a) < sext(b) : a < b;
}

uint mask_out(uint v) { return OUT_BITS >= 32u ? v : v & ((1u << OUT_BITS) - 1u); }
uint encode_float(uint bits) {
  if (DT == DT_F32) return bits;
  return DT == DT_F8 ? narrow_f8_bits(bits) : narrow_half_bits(bits, DT == DT_BF16);
}

// The element index of output o's first reduced element.
uint first_of(uint o) {
  uint base = p[4], rest = o;
  for (int d = int(p[1]) - 1; d >= 0; --d) {
    const uint dim = p[8u + 2u * uint(d)];
    base += (rest % dim) * p[9u + 2u * uint(d)];
    rest /= dim;
  }
  return base;
}

// One odometer step over the reduced axes (last fastest): k moves to the next element.
void step(inout uint k, inout uint c[MAX_RANK]) {
  for (int d = int(p[2]) - 1; d >= 0; --d) {
    const uint dim = p[24u + 2u * uint(d)], st = p[25u + 2u * uint(d)];
    k += st;
    if (++c[d] < dim) break;
    k -= st * dim;
    c[d] = 0u;
  }
}

// ---- 8-byte elements as (low, high) word pairs ----
uvec2 load64(uint k) { return uvec2(x[2u * k], x[2u * k + 1u]); }
bool nan64(uvec2 v) {
  const uint hi = v.y & 0x7fffffffu;
  return DT == DT_F64 && (hi > 0x7ff00000u || (hi == 0x7ff00000u && v.x != 0u));
}
bool ult64(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
// Is a below b: floats with -0 below +0 when signed_zero_order (else equal), integers by value.
bool less64(uvec2 a, uvec2 b, bool signed_zero_order) {
  if (DT == DT_F64) {
    const bool zeros = ((a.y & 0x7fffffffu) | a.x) == 0u && ((b.y & 0x7fffffffu) | b.x) == 0u;
    if (zeros && !signed_zero_order) return false;
    a = (a.y & 0x80000000u) != 0u ? ~a : uvec2(a.x, a.y | 0x80000000u);
    b = (b.y & 0x80000000u) != 0u ? ~b : uvec2(b.x, b.y | 0x80000000u);
  } else if (DT == DT_I64) {
    a.y ^= 0x80000000u;
    b.y ^= 0x80000000u;
  }
  return ult64(a, b);
}
uvec2 add64(uvec2 a, uvec2 b) {
  uint carry;
  const uint lo = uaddCarry(a.x, b.x, carry);
  return uvec2(lo, a.y + b.y + carry);
}
uvec2 mul64(uvec2 a, uvec2 b) {  // modulo 2^64
  uint hi, lo;
  umulExtended(a.x, b.x, hi, lo);
  return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}

// An exact 96-bit sum (low, middle words and top) divided by count, truncating toward zero, as
// 64-bit words (a mean: it fits); count 0 gives 0.
uvec2 divide96(uvec2 lo, uint top, bool sgn, uint count) {
  if (count == 0u) return uvec2(0u);
  const bool neg = sgn && (top & 0x80000000u) != 0u;
  uint w[3] = uint[](lo.x, lo.y, top);
  if (neg) {  // the magnitude: two's complement of the three words
    uint borrow, b2;
    w[0] = usubBorrow(0u, w[0], borrow);
    w[1] = usubBorrow(0u, w[1], b2);
    w[1] -= borrow;
    b2 += (w[1] == 0xffffffffu && borrow != 0u) ? 1u : 0u;
    w[2] = 0u - w[2] - b2;
  }
  uvec2 q = uvec2(0u);
  uint rem = 0u;
  for (int i = 95; i >= 0; --i) {
    const uint bit = (w[i / 32] >> uint(i % 32)) & 1u;
    const bool carry = (rem & 0x80000000u) != 0u;
    rem = (rem << 1) | bit;
    if (carry || rem >= count) {
      rem -= count;
      if (i < 32) q.x |= 1u << uint(i); else if (i < 64) q.y |= 1u << uint(i - 32);
    }
  }
  if (!neg) return q;
  uint borrow;
  const uint l = usubBorrow(0u, q.x, borrow);
  return uvec2(l, 0u - q.y - borrow);
}

// The result of output o over 8-byte elements (argmax/argmin: the index; is_finite: 0 or 1).
uvec2 reduce_wide(uint o) {
  const uint count = p[3];
  uvec2 acc = OP == OP_PROD ? uvec2(1u, 0u) : uvec2(0u), best = uvec2(0u);
  uint best_at = 0u, top = 0u;  // top: the mean's third sum word
#if defined(F64)
  double fsum = OP == OP_PROD ? 1.0LF : count == 0u ? 0.0LF : -0.0LF;
#endif
  uint c[MAX_RANK];
  for (uint d = 0u; d < MAX_RANK; ++d) c[d] = 0u;
  uint k = first_of(o);
  for (uint r = 0u; r < count; ++r) {
    const uvec2 v = load64(k);
    if (OP == OP_ALL_FINITE) {
      if ((v.y & 0x7ff00000u) == 0x7ff00000u) return uvec2(0u);
    } else if (OP == OP_SUM || OP == OP_MEAN || OP == OP_PROD) {
#if defined(F64)
      if (OP == OP_PROD) fsum *= packDouble2x32(v); else fsum += packDouble2x32(v);
#else
      if (OP == OP_MEAN) {  // the exact sum in three words: v sign-extended for i64
        uint c0, c1, c2;
        acc.x = uaddCarry(acc.x, v.x, c0);
        const uint t = uaddCarry(acc.y, v.y, c1);
        acc.y = uaddCarry(t, c0, c2);
        top += (DT == DT_I64 && (v.y & 0x80000000u) != 0u ? 0xffffffffu : 0u) + c1 + c2;
      } else {
        acc = OP == OP_PROD ? mul64(acc, v) : add64(acc, v);
      }
#endif
    } else if (OP == OP_MAX || OP == OP_MIN) {
      if (r == 0u || nan64(v)) {
        best = v;
        if (nan64(v)) break;
      } else if (OP == OP_MAX ? less64(best, v, true) : less64(v, best, true)) {
        best = v;
      }
    } else {  // argmax, argmin
      if (nan64(v)) {
        best_at = r;
        break;
      }
      const bool take = r == 0u || (OP == OP_ARGMAX ? less64(best, v, false) : less64(v, best, false));
      const bool tie = r != 0u && !less64(best, v, false) && !less64(v, best, false);
      if (take || (tie && p[6] == 0u)) {
        best = v;
        best_at = r;
      }
    }
    step(k, c);
  }
  if (OP == OP_ALL_FINITE) return uvec2(1u, 0u);
  if (OP >= OP_ARGMAX) return uvec2(best_at, 0u);
  if (OP == OP_MAX || OP == OP_MIN) return best;
#if defined(F64)
  if (OP == OP_MEAN) fsum = count == 0u ? nan_f64() : fsum / double(count);
  return unpackDouble2x32(fsum);
#else
  if (OP == OP_MEAN) return divide96(acc, top, DT == DT_I64, count);
  return acc;
#endif
}

// sum/prod of elements of up to 32 bits accumulated (acc=) into i64/u64: exact conversions,
// then modular 64-bit arithmetic.
uvec2 reduce_acc64(uint o) {
  uvec2 acc = OP == OP_PROD ? uvec2(1u, 0u) : uvec2(0u);
  uint c[MAX_RANK];
  for (uint d = 0u; d < MAX_RANK; ++d) c[d] = 0u;
  uint k = first_of(o);
  for (uint r = 0u; r < p[3]; ++r) {
    const uint raw = load_raw(k);
    const uvec2 v = SIGNED ? uvec2(uint(sext(raw)), sext(raw) < 0 ? 0xffffffffu : 0u) : uvec2(raw, 0u);
    acc = OP == OP_PROD ? mul64(acc, v) : add64(acc, v);
    step(k, c);
  }
  return acc;
}

uvec2 neg64(uvec2 v) {
  uint borrow;
  const uint lo = usubBorrow(0u, v.x, borrow);
  return uvec2(lo, 0u - v.y - borrow);
}

// mean of integers of up to 32 bits: the exact sum (wrapped at the acc= width when
// accumulating), divided by the count truncating toward zero; an empty axis gives 0.
uvec2 mean_int(uint o) {
  const uint count = p[3];
  if (count == 0u) return uvec2(0u);
  uvec2 sum = uvec2(0u);
  uint c[MAX_RANK];
  for (uint d = 0u; d < MAX_RANK; ++d) c[d] = 0u;
  uint k = first_of(o);
  for (uint r = 0u; r < count; ++r) {
    const uint raw = load_raw(k);
    sum = add64(sum, SIGNED ? uvec2(uint(sext(raw)), sext(raw) < 0 ? 0xffffffffu : 0u) : uvec2(raw, 0u));
    step(k, c);
  }
  if (DT_ACC != 99u && ACC_BITS < 64u) {  // wrapped at the acc width, then sign-extended
    const uint lo = ACC_BITS == 32u ? sum.x : sum.x & ((1u << ACC_BITS) - 1u);
    const int s32 = ACC_BITS == 32u ? int(lo) : int(lo << (32u - ACC_BITS)) >> (32u - ACC_BITS);
    sum = SIGNED ? uvec2(uint(s32), s32 < 0 ? 0xffffffffu : 0u) : uvec2(lo, 0u);
  }
  const bool neg = SIGNED && (sum.y & 0x80000000u) != 0u;
  const uvec2 mag = neg ? neg64(sum) : sum;
  // long division of the 64-bit magnitude by the 32-bit count
  uvec2 q = uvec2(0u);
  uint rem = 0u;
  for (int i = 63; i >= 0; --i) {
    const uint bit = i >= 32 ? (mag.y >> uint(i - 32)) & 1u : (mag.x >> uint(i)) & 1u;
    const bool carry = (rem & 0x80000000u) != 0u;
    rem = (rem << 1) | bit;
    if (carry || rem >= count) {
      rem -= count;
      if (i >= 32) q.y |= 1u << uint(i - 32); else q.x |= 1u << uint(i);
    }
  }
  return neg ? neg64(q) : q;
}

// The result's bits for output o (argmax/argmin: the index, below 2^32).
uint reduce_one(uint o) {
  if (BITS == 64u) return reduce_wide(o).x;  // argmax, argmin, is_finite
  if (OP == OP_MEAN && !FLOAT) return mask_out(mean_int(o).x);
  const uint base = first_of(o);
  const uint count = p[3];
  float fsum = OP == OP_PROD ? 1.0 : count == 0u ? 0.0 : -0.0;
  uint isum = OP == OP_PROD ? 1u : 0u;
  uint best = 0u, best_at = 0u;
  uint c[MAX_RANK];
  for (uint d = 0u; d < MAX_RANK; ++d) c[d] = 0u;
  uint k = base;
  for (uint r = 0u; r < count; ++r) {
    uint v = load_raw(k);
    if (FLOAT) v = f32_bits(v);
    if (OP == OP_ALL_FINITE) {  // is_finite: one bool for the whole tensor
      if ((v & 0x7f800000u) == 0x7f800000u) return 0u;
    } else if (OP == OP_SUM || OP == OP_MEAN) {
      if (FLOAT) fsum += uintBitsToFloat(v); else isum += SIGNED ? uint(sext(v)) : v;
    } else if (OP == OP_PROD) {
      if (FLOAT) fsum *= uintBitsToFloat(v); else isum *= SIGNED ? uint(sext(v)) : v;  // modular
    } else if (OP == OP_MAX || OP == OP_MIN) {
      if (r == 0u || (FLOAT && is_nan(v))) {
        best = v;
        if (FLOAT && is_nan(v)) break;
      } else if (OP == OP_MAX ? less(best, v, true) : less(v, best, true)) {
        best = v;
      }
    } else {  // argmax, argmin along the one reduced axis: r is the coordinate
      if (FLOAT && is_nan(v)) {
        best_at = r;
        break;
      }
      const bool take = r == 0u || (OP == OP_ARGMAX ? less(best, v, false) : less(v, best, false));
      const bool tie = r != 0u && !less(best, v, false) && !less(v, best, false);
      if (take || (tie && p[6] == 0u)) {
        best = v;
        best_at = r;
      }
    }
    step(k, c);
  }
  if (OP == OP_ALL_FINITE) return 1u;
  if (OP >= OP_ARGMAX) return best_at;
  if (OP == OP_MAX || OP == OP_MIN) return FLOAT ? encode_float(best) : mask_out(best);
  if (!FLOAT) return mask_out(isum);
  if (OP == OP_MEAN) {
    if (count == 0u) return encode_float(0x7fc00000u);
    fsum = fsum / float(count);
  }
  return encode_float(floatBitsToUint(fsum));
}

// ---- one workgroup per output (ROW_GROUPS): few outputs over one long axis ----
// max/min/argmax/argmin of up to 32-bit elements: each invocation scans every 256th element
// with the serial rules (first NaN wins, -0 and +0 tie for argmax/argmin, select_first picks the
// first or last of equal values), then the partial results meet in a tree that keeps the same
// rules: the smallest NaN index, else the better value, else the first (or last) index.
shared uint row_best[256];
shared uint row_at[256];
shared uint row_nan[256];  // index of the first NaN seen, 0xffffffff: none

bool row_better(uint a, uint b) {  // is a strictly better than b?
  const bool sz = OP == OP_MAX || OP == OP_MIN;  // values: -0 below +0
  return (OP == OP_MAX || OP == OP_ARGMAX) ? less(b, a, sz) : less(a, b, sz);
}

void reduce_row(uint o) {
  const uint t = gl_LocalInvocationIndex, count = p[3], st = p[25];
  const uint base = first_of(o);
  uint best = 0u, at = 0xffffffffu, nan_at = 0xffffffffu;
  for (uint r = t; r < count; r += 256u) {
    uint v = load_raw(base + r * st);
    if (FLOAT) v = f32_bits(v);
    if (FLOAT && is_nan(v)) {
      nan_at = r;
      best = v;
      break;
    }
    const bool first = at == 0xffffffffu;
    const bool tie = !first && !row_better(v, best) && !row_better(best, v);
    if (first || row_better(v, best) || (tie && p[6] == 0u)) {
      best = v;
      at = r;
    }
  }
  row_best[t] = best;
  row_at[t] = at;
  row_nan[t] = nan_at;
  barrier();
  for (uint half_n = 128u; half_n > 0u; half_n >>= 1) {
    if (t < half_n) {
      const uint u = t + half_n;
      if (row_nan[u] < row_nan[t]) {
        row_nan[t] = row_nan[u];
        row_best[t] = row_best[u];
      } else if (row_nan[t] == 0xffffffffu && row_at[u] != 0xffffffffu) {
        const uint a = row_best[t], b = row_best[u];
        bool take = row_at[t] == 0xffffffffu || row_better(b, a);
        if (!take && !row_better(a, b)) {  // equal values: the first or the last index
          take = p[6] != 0u ? row_at[u] < row_at[t] : row_at[u] > row_at[t];
        }
        if (take) {
          row_best[t] = b;
          row_at[t] = row_at[u];
        }
      }
    }
    barrier();
  }
  if (t == 0u) {
    const uint y0 = p[5] + o;
    if (OP >= OP_ARGMAX) {
      y[2u * y0] = row_nan[0] != 0xffffffffu ? row_nan[0] : (row_at[0] == 0xffffffffu ? 0u : row_at[0]);
      y[2u * y0 + 1u] = 0u;
    } else {
      y[y0] = FLOAT ? encode_float(row_best[0]) : row_best[0];
    }
  }
}

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (ROW_GROUPS == 1u) {
    for (uint o = gl_WorkGroupID.x; o < p[0]; o += gl_NumWorkGroups.x) {
      reduce_row(o);
      barrier();  // the next output reuses the shared arrays
    }
    return;
  }
  const uint first = p[5], end = p[5] + p[0];
  if (OUT_BITS == 64u) {
    for (uint o = gl_GlobalInvocationID.x; o < p[0]; o += stride) {
      const uvec2 r = BITS == 64u                      ? reduce_wide(o)
                      : OP == OP_MEAN && !FLOAT        ? mean_int(o)
                      : OP <= OP_PROD && DT_ACC != 99u ? reduce_acc64(o)
                                                       : uvec2(reduce_one(o), 0u);
      y[2u * (first + o)] = r.x;
      y[2u * (first + o) + 1u] = r.y;
    }
    return;
  }
  const uint per = 32u / OUT_BITS, bits_per = OUT_BITS;
  const uint w0 = first / per, words = (end + per - 1u) / per - w0;
  for (uint j = gl_GlobalInvocationID.x; j < words; j += stride) {
    const uint w = w0 + j;
    uint bits = 0u, keep = 0u;
    for (uint q = 0u; q < per; ++q) {
      const uint g = w * per + q, shift = q * bits_per;
      const uint m = per == 1u ? 0xffffffffu : ((1u << bits_per) - 1u) << shift;
      if (g >= first && g < end) {
        bits |= (reduce_one(g - first) << shift) & m;
      } else {
        keep |= m;
      }
    }
    if (keep == 0u) {
      y[w] = bits;
    } else {
      atomicAnd(y[w], keep);
      atomicOr(y[w], bits);
    }
  }
}
