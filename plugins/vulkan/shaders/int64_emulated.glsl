// i64/u64 values as (low, high) 32-bit words, for devices without shaderInt64: the W64
// primitives int64_ops.glsl builds every op from (int64_native.glsl has the same names over
// uint64_t). Two's complement throughout: signed and unsigned add, sub, mul and shl are the
// same bits; only comparisons, right shifts and division look at the sign (int64_ops.glsl).
#define W64 uvec2

W64 w64(uvec2 words) { return words; }
uvec2 w64_words(W64 v) { return v; }
W64 w64_zero() { return uvec2(0u); }

W64 w64_add(W64 a, W64 b) {
  uint carry;
  const uint lo = uaddCarry(a.x, b.x, carry);
  return uvec2(lo, a.y + b.y + carry);
}
W64 w64_sub(W64 a, W64 b) {
  uint borrow;
  const uint lo = usubBorrow(a.x, b.x, borrow);
  return uvec2(lo, a.y - b.y - borrow);
}
// The low 64 bits of the product: the full 64-bit product of the low words, plus the low
// words' cross products shifted by 32 (their high halves and a.y * b.y fall past bit 63).
W64 w64_mul(W64 a, W64 b) {
  uint hi, lo;
  umulExtended(a.x, b.x, hi, lo);
  return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}
W64 w64_not(W64 a) { return ~a; }
W64 w64_and(W64 a, W64 b) { return a & b; }
W64 w64_or(W64 a, W64 b) { return a | b; }
W64 w64_xor(W64 a, W64 b) { return a ^ b; }

// Shifts by n < 64 (int64_ops.glsl settles n >= 64).
W64 w64_shl(W64 a, uint n) {
  if (n == 0u) return a;
  if (n >= 32u) return uvec2(0u, a.x << (n - 32u));
  return uvec2(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}
W64 w64_shr_u(W64 a, uint n) {
  if (n == 0u) return a;
  if (n >= 32u) return uvec2(a.y >> (n - 32u), 0u);
  return uvec2((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}
W64 w64_shr_s(W64 a, uint n) {  // arithmetic: the sign bit fills
  if (n == 0u) return a;
  const int hi = int(a.y);
  if (n >= 32u) return uvec2(uint(hi >> (n - 32u)), uint(hi >> 31));
  return uvec2((a.x >> n) | (a.y << (32u - n)), uint(hi >> n));
}

bool w64_eq(W64 a, W64 b) { return a == b; }
bool w64_ult(W64 a, W64 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool w64_sign(W64 a) { return (a.y & 0x80000000u) != 0u; }  // bit 63
uint w64_popcount(W64 a) { return uint(bitCount(a.x) + bitCount(a.y)); }

int w64_msb(W64 a) { return a.y != 0u ? 32 + findMSB(a.y) : findMSB(a.x); }

// Unsigned n / d (d != 0), the remainder in r: one 32-bit division where both fit, else
// restoring long division from the divisor aligned under the dividend's top bit.
W64 w64_udivrem(W64 n, W64 d, out W64 r) {
  if ((n.y | d.y) == 0u) {
    r = uvec2(n.x % d.x, 0u);
    return uvec2(n.x / d.x, 0u);
  }
  if (w64_ult(n, d)) {
    r = n;
    return uvec2(0u);
  }
  const int shift = w64_msb(n) - w64_msb(d);
  W64 dd = w64_shl(d, uint(shift));
  W64 q = uvec2(0u);
  r = n;
  for (int i = shift; i >= 0; --i) {
    q = w64_shl(q, 1u);
    if (!w64_ult(r, dd)) {
      r = w64_sub(r, dd);
      q.x |= 1u;
    }
    dd = w64_shr_u(dd, 1u);
  }
  return q;
}
