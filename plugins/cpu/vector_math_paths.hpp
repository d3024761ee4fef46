// The span tables of vector_math's two paths (vector_math_avx2.cpp, vector_math_portable.cpp),
// indexed by vmath::Func; vector_math.cpp chooses between them.
#pragma once

#include "vector_math.hpp"

namespace oi::cpu::vmath {

const UnarySpan* avx2_unary_spans();  // nullptr where the build is not for x86-64
PowSpan avx2_pow_span();
const UnarySpan* portable_unary_spans();
PowSpan portable_pow_span();

}  // namespace oi::cpu::vmath
