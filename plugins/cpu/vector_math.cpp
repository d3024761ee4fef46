// vector_math.hpp's dispatch: the AVX2+FMA path where the CPU has both, else the portable one.
#include "vector_math.hpp"

#include "vector_math_paths.hpp"

namespace oi::cpu::vmath {

bool has_avx2() {
#if defined(__x86_64__)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

namespace {
bool use_avx2(Path path) {
  return path == Path::Avx2 || (path == Path::Best && has_avx2());
}
}  // namespace

UnarySpan unary_span(Func f, Path path) {
  if (path == Path::Avx2 && !has_avx2()) return nullptr;
  const UnarySpan* spans = use_avx2(path) ? avx2_unary_spans() : portable_unary_spans();
  return spans[static_cast<int>(f)];
}

PowSpan pow_span(Path path) {
  if (path == Path::Avx2 && !has_avx2()) return nullptr;
  return use_avx2(path) ? avx2_pow_span() : portable_pow_span();
}

const char* func_name(Func f) {
  static constexpr const char* kNames[kFuncCount] = {"exp",     "log",  "sqrt", "rsqrt",
                                                     "sin",     "cos",  "tanh", "erf",
                                                     "sigmoid", "silu", "gelu", "gelu_tanh"};
  return kNames[static_cast<int>(f)];
}

}  // namespace oi::cpu::vmath
