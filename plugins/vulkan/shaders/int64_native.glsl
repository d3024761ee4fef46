// The W64 primitives of int64_emulated.glsl over uint64_t (shaderInt64; the shader enables
// GL_EXT_shader_explicit_arithmetic_types_int64 before including int64_ops.glsl). Same names,
// same results: int64_ops.glsl builds every i64/u64 op from them once.
#define W64 uint64_t

W64 w64(uvec2 words) { return pack64(words); }
uvec2 w64_words(W64 v) { return unpack32(v); }
W64 w64_zero() { return 0ul; }

W64 w64_add(W64 a, W64 b) { return a + b; }
W64 w64_sub(W64 a, W64 b) { return a - b; }
W64 w64_mul(W64 a, W64 b) { return a * b; }
W64 w64_not(W64 a) { return ~a; }
W64 w64_and(W64 a, W64 b) { return a & b; }
W64 w64_or(W64 a, W64 b) { return a | b; }
W64 w64_xor(W64 a, W64 b) { return a ^ b; }

// Shifts by n < 64 (int64_ops.glsl settles n >= 64).
W64 w64_shl(W64 a, uint n) { return a << n; }
W64 w64_shr_u(W64 a, uint n) { return a >> n; }
W64 w64_shr_s(W64 a, uint n) { return uint64_t(int64_t(a) >> n); }

bool w64_eq(W64 a, W64 b) { return a == b; }
bool w64_ult(W64 a, W64 b) { return a < b; }
bool w64_sign(W64 a) { return int64_t(a) < 0l; }
uint w64_popcount(W64 a) {
  const uvec2 w = unpack32(a);
  return uint(bitCount(w.x) + bitCount(w.y));
}

// Unsigned n / d (d != 0), the remainder in r.
W64 w64_udivrem(W64 n, W64 d, out W64 r) {
  r = n % d;
  return n / d;
}
