// vector_math's AVX2+FMA path: the kernels of vector_math_kernels.inc over 4 double lanes,
// 8 f32 values per step. Everything between the target pragmas is this file's own (no header is
// included there), so no inline function shared with other files is built for AVX2; callers
// check vmath::has_avx2() first.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "vector_math_paths.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

// clang has no `#pragma GCC target`: it gives every function of the region the attribute.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

namespace oi::cpu::vmath::avx2 {
namespace {

#define OI_VM_INLINE __attribute__((always_inline)) inline

constexpr int kLanes = 4;
using vd = __m256d;
using vi = int64_t __attribute__((vector_size(32)));
using vu = uint64_t __attribute__((vector_size(32)));
using vf = __m256;
using vfi = int32_t __attribute__((vector_size(32)));

OI_VM_INLINE vd fmadd(vd a, vd b, vd c) {
  return _mm256_fmadd_pd(a, b, c);
}
OI_VM_INLINE vd gather(const double* table, vu index) {
  return _mm256_i64gather_pd(table, reinterpret_cast<__m256i>(index), 8);
}
OI_VM_INLINE vd vsqrt(vd v) {
  return _mm256_sqrt_pd(v);
}
OI_VM_INLINE bool any(vi mask) {
  return _mm256_movemask_pd(reinterpret_cast<vd>(mask)) != 0;
}
OI_VM_INLINE void load_pair(const float* p, vd& lo, vd& hi) {
  lo = _mm256_cvtps_pd(_mm_loadu_ps(p));
  hi = _mm256_cvtps_pd(_mm_loadu_ps(p + 4));
}
OI_VM_INLINE void store_pair(float* p, vd lo, vd hi) {
  _mm256_storeu_ps(p, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
}

OI_VM_INLINE vf fmaddf(vf a, vf b, vf c) {
  return _mm256_fmadd_ps(a, b, c);
}
OI_VM_INLINE vf loadf(const float* p) {
  return _mm256_loadu_ps(p);
}
OI_VM_INLINE void storef(float* p, vf v) {
  _mm256_storeu_ps(p, v);
}

#include "vector_math_kernels.inc"

#undef OI_VM_INLINE

}  // namespace
}  // namespace oi::cpu::vmath::avx2

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace oi::cpu::vmath {
const UnarySpan* avx2_unary_spans() {
  return avx2::kUnarySpans;
}
PowSpan avx2_pow_span() {
  return avx2::pow_run;
}
}  // namespace oi::cpu::vmath

#else

namespace oi::cpu::vmath {
const UnarySpan* avx2_unary_spans() {
  return nullptr;
}
PowSpan avx2_pow_span() {
  return nullptr;
}
}  // namespace oi::cpu::vmath

#endif
