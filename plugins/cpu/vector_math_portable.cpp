// vector_math's portable path: the kernels of vector_math_kernels.inc over 2 double lanes at the
// build's base ISA (SSE2 on x86-64, GCC's generic vectors elsewhere), multiply-adds unfused.
// Used where the CPU lacks AVX2 or FMA, and by the tests, which force it.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "vector_math_paths.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace oi::cpu::vmath::portable {
namespace {

#define OI_VM_INLINE __attribute__((always_inline)) inline

constexpr int kLanes = 2;
using vd = double __attribute__((vector_size(16)));
using vi = int64_t __attribute__((vector_size(16)));
using vu = uint64_t __attribute__((vector_size(16)));
using vf = float __attribute__((vector_size(16)));
using vfi = int32_t __attribute__((vector_size(16)));

OI_VM_INLINE vd fmadd(vd a, vd b, vd c) {
  return a * b + c;  // -ffp-contract=off keeps this two roundings
}
OI_VM_INLINE vf fmaddf(vf a, vf b, vf c) {
  return a * b + c;
}
OI_VM_INLINE vf loadf(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
OI_VM_INLINE void storef(float* p, vf v) {
  std::memcpy(p, &v, sizeof v);
}
OI_VM_INLINE vd gather(const double* table, vu index) {
  return vd{table[index[0]], table[index[1]]};
}

#if defined(__SSE2__)
OI_VM_INLINE vd vsqrt(vd v) {
  return _mm_sqrt_pd(v);
}
OI_VM_INLINE bool any(vi mask) {
  return _mm_movemask_pd(reinterpret_cast<__m128d>(mask)) != 0;
}
OI_VM_INLINE void load_pair(const float* p, vd& lo, vd& hi) {
  const __m128 v = _mm_loadu_ps(p);
  lo = _mm_cvtps_pd(v);
  hi = _mm_cvtps_pd(_mm_movehl_ps(v, v));
}
OI_VM_INLINE void store_pair(float* p, vd lo, vd hi) {
  _mm_storeu_ps(p, _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)));
}
#else
OI_VM_INLINE vd vsqrt(vd v) {
  return vd{std::sqrt(v[0]), std::sqrt(v[1])};
}
OI_VM_INLINE bool any(vi mask) {
  return (mask[0] | mask[1]) != 0;
}
OI_VM_INLINE void load_pair(const float* p, vd& lo, vd& hi) {
  lo = vd{p[0], p[1]};
  hi = vd{p[2], p[3]};
}
OI_VM_INLINE void store_pair(float* p, vd lo, vd hi) {
  p[0] = static_cast<float>(lo[0]);
  p[1] = static_cast<float>(lo[1]);
  p[2] = static_cast<float>(hi[0]);
  p[3] = static_cast<float>(hi[1]);
}
#endif

#include "vector_math_kernels.inc"

#undef OI_VM_INLINE

}  // namespace
}  // namespace oi::cpu::vmath::portable

namespace oi::cpu::vmath {
const UnarySpan* portable_unary_spans() {
  return portable::kUnarySpans;
}
PowSpan portable_pow_span() {
  return portable::pow_run;
}
}  // namespace oi::cpu::vmath
