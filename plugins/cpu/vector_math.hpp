// Vectorised f32 transcendentals over spans (ops-nn.md "Elementwise math"): every result is
// within 2 ulp of the exactly rounded one (the kernels evaluate in double lanes and round once
// to f32, so they reach 1 ulp; tests/plugins/cpu_vector_math_test.cpp measures it), with NaN,
// infinities, signed zeros, subnormals, overflow and underflow as libm gives them. Two paths
// compute the same formulas: AVX2+FMA (4 doubles a register) where the CPU has both, and a
// portable one at the build's base ISA (SSE2 on x86-64); Path::Best picks at run time.
#pragma once

#include <cstdint>

namespace oi::cpu::vmath {

enum class Func : uint8_t {
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Erf,
  Sigmoid,
  Silu,
  GeluErf,   // gelu approximate="none": a/2 * erfc(-a/sqrt(2))
  GeluTanh,  // gelu approximate="tanh": a / (1 + e^(-2u)), u = sqrt(2/pi) (a + 0.044715 a^3)
};
inline constexpr int kFuncCount = 12;

enum class Path : uint8_t { Best, Avx2, Portable };

// out[i] = f(in[i]) for i < n. in == out (in place) is allowed; other overlaps are not.
// Any alignment.
using UnarySpan = void (*)(const float* in, float* out, uint64_t n);
// out[i] = pow(a[i], b[i * b_step]) for i < n, b_step 0 (one exponent) or 1. out may be a or b.
using PowSpan = void (*)(const float* a, const float* b, uint64_t b_step, float* out, uint64_t n);

// Whether this CPU runs the AVX2+FMA path.
bool has_avx2();
// The span function of `f` on `path`; nullptr for Path::Avx2 where has_avx2() is false.
UnarySpan unary_span(Func f, Path path = Path::Best);
PowSpan pow_span(Path path = Path::Best);
// The op's name, for messages ("gelu_tanh" for GeluTanh).
const char* func_name(Func f);

}  // namespace oi::cpu::vmath
