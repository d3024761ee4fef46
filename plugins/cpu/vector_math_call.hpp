// Kernel calls of the elementwise math ops through vector_math's span functions: contiguous
// operands in parallel chunks (oneTBB), f8/bf16/f16 widened to f32 a block at a time and the
// f32 result rounded once to their dtype (ops-nn.md's accuracy rule for the narrow floats).
#pragma once

#include "openinfer/plugin_abi.h"
#include "vector_math.hpp"

namespace oi::cpu {

// Elements per block of the narrow-float path, and a chunk's cost per element for
// parallel_ranges (a transcendental costs a few element copies).
inline constexpr uint64_t kVectorMathBlock = 1024;
inline constexpr uint64_t kVectorMathCost = 4;

// Output 0 = f(input 0) for an f32, f16, bf16 or f8 call whose input and output hold the same
// number of elements (normal or in place). Returns false, writing nothing, for other calls.
bool run_unary_span(const oi_kernel_call& call, vmath::UnarySpan span);

// Output 0 = pow(input 0, input 1) for f32 calls where input 0 has the output's elements and
// input 1 the same or a single one (normal or in place). False, writing nothing, otherwise.
bool run_pow_span(const oi_kernel_call& call, vmath::PowSpan span);

}  // namespace oi::cpu
