#include "attention_math.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#if OPENINFER_CPU_HAVE_OPENBLAS
#include <cblas.h>
#endif
#include "openinfer/plugin_abi.h"
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

#include "exp_avx2.hpp"
#define OI_ATTENTION_X86 1
namespace {
// CPUID.1:ECX bit 29. Not __builtin_cpu_supports("f16c"): clang 14 does not know that name.
bool has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
}
}  // namespace
#endif

namespace oi::cpu {
namespace {

// Below this many multiply-adds a BLAS call costs more than the plain loop.
constexpr uint64_t kMinBlasWork = 4096;

template <class T>
void scores_loop(const T* a, uint64_t lda, const T* b, uint64_t ldb, T* c, uint64_t ldc, uint64_t m,
                 uint64_t n, uint64_t k) {
  for (uint64_t i = 0; i < m; ++i) {
    for (uint64_t j = 0; j < n; ++j) {
      const T* x = a + i * lda;
      const T* y = b + j * ldb;
      T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      uint64_t p = 0;
      for (; p + 4 <= k; p += 4) {
        s0 += x[p] * y[p];
        s1 += x[p + 1] * y[p + 1];
        s2 += x[p + 2] * y[p + 2];
        s3 += x[p + 3] * y[p + 3];
      }
      for (; p < k; ++p) s0 += x[p] * y[p];
      c[i * ldc + j] = (s0 + s1) + (s2 + s3);
    }
  }
}

template <class T>
void accumulate_loop(const T* a, uint64_t lda, const T* b, uint64_t ldb, T* c, uint64_t ldc,
                     uint64_t m, uint64_t n, uint64_t k) {
  for (uint64_t i = 0; i < m; ++i) {
    T* out = c + i * ldc;
    for (uint64_t p = 0; p < k; ++p) {
      const T w = a[i * lda + p];
      const T* row = b + p * ldb;
      for (uint64_t j = 0; j < n; ++j) out[j] += w * row[j];
    }
  }
}

#if OPENINFER_CPU_HAVE_OPENBLAS
// OpenBLAS's own thread pool would compete with oneTBB's workers, which run the tiles.
void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

bool blas_fits(uint64_t m, uint64_t n, uint64_t k, uint64_t lda, uint64_t ldb, uint64_t ldc) {
  if (m * n * k < kMinBlasWork) return false;
  for (uint64_t v : {m, n, k, lda, ldb, ldc})
    if (v > INT_MAX) return false;
  single_threaded_blas();
  return true;
}

void blas_scores(const float* a, uint64_t lda, const float* b, uint64_t ldb, float* c, uint64_t ldc,
                 int m, int n, int k) {
  if (m == 1) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, n, k, 1.0f, b, int(ldb), a, 1, 0.0f, c, 1);
  } else {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, int(lda), b, int(ldb),
                0.0f, c, int(ldc));
  }
}
void blas_scores(const double* a, uint64_t lda, const double* b, uint64_t ldb, double* c,
                 uint64_t ldc, int m, int n, int k) {
  if (m == 1) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, n, k, 1.0, b, int(ldb), a, 1, 0.0, c, 1);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, a, int(lda), b, int(ldb),
                0.0, c, int(ldc));
  }
}
void blas_accumulate(const float* a, uint64_t lda, const float* b, uint64_t ldb, float* c,
                     uint64_t ldc, int m, int n, int k) {
  if (m == 1) {
    cblas_sgemv(CblasRowMajor, CblasTrans, k, n, 1.0f, b, int(ldb), a, 1, 1.0f, c, 1);
  } else {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, int(lda), b, int(ldb),
                1.0f, c, int(ldc));
  }
}
void blas_accumulate(const double* a, uint64_t lda, const double* b, uint64_t ldb, double* c,
                     uint64_t ldc, int m, int n, int k) {
  if (m == 1) {
    cblas_dgemv(CblasRowMajor, CblasTrans, k, n, 1.0, b, int(ldb), a, 1, 1.0, c, 1);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, int(lda), b, int(ldb),
                1.0, c, int(ldc));
  }
}
#endif

// e^(s[j] - m) in place and their sum, for j in [0, n); std::exp where no AVX2 path runs.
template <class T>
T exp_shift_sum_scalar(T* s, uint64_t n, T m) {
  T sum = 0;
  for (uint64_t j = 0; j < n; ++j) {
    s[j] = std::exp(s[j] - m);
    sum += s[j];
  }
  return sum;
}

#if OI_ATTENTION_X86
__attribute__((target("avx2,fma"))) float row_max_avx2(const float* s, uint64_t n) {
  __m256 acc = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  uint64_t j = 0;
  for (; j + 8 <= n; j += 8) acc = _mm256_max_ps(_mm256_loadu_ps(s + j), acc);  // skips NaN
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  float m = lanes[0];
  for (int i = 1; i < 8; ++i) m = std::max(m, lanes[i]);
  for (; j < n; ++j)
    if (s[j] > m) m = s[j];
  return m;
}

__attribute__((target("avx2,fma"))) float exp_shift_sum_avx2(float* s, uint64_t n, float m) {
  const __m256 vm = _mm256_set1_ps(m);
  __m256 acc = _mm256_setzero_ps();
  uint64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 p = exp_nonpositive_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + j), vm));
    _mm256_storeu_ps(s + j, p);
    acc = _mm256_add_ps(acc, p);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
              ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  return sum + exp_shift_sum_scalar(s + j, n - j, m);
}

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

template <class T>
T row_max_scalar(const T* s, uint64_t n) {
  T m = -std::numeric_limits<T>::infinity();
  for (uint64_t j = 0; j < n; ++j)
    if (s[j] > m) m = s[j];  // NaN never wins here; it propagates through e^(s - m) instead
  return m;
}

float row_max(const float* s, uint64_t n) {
#if OI_ATTENTION_X86
  if (cpu_has_avx2()) return row_max_avx2(s, n);
#endif
  return row_max_scalar(s, n);
}
double row_max(const double* s, uint64_t n) {
  return row_max_scalar(s, n);
}

float exp_shift_sum(float* s, uint64_t n, float m) {
#if OI_ATTENTION_X86
  if (cpu_has_avx2()) return exp_shift_sum_avx2(s, n, m);
#endif
  return exp_shift_sum_scalar(s, n, m);
}
double exp_shift_sum(double* s, uint64_t n, double m) {
  return exp_shift_sum_scalar(s, n, m);
}

template <class T>
T row_update(T* s, uint64_t n, T& m, T& l) {
  const T m_new = std::max(m, row_max(s, n));
  if (m_new == -std::numeric_limits<T>::infinity()) {
    // Every score so far is -inf (masked) or NaN: masked keys weigh 0, a NaN makes the row NaN.
    bool nan = false;
    for (uint64_t j = 0; j < n; ++j) {
      nan = nan || std::isnan(s[j]);
      s[j] = std::isnan(s[j]) ? s[j] : T{0};
    }
    if (nan) l = std::numeric_limits<T>::quiet_NaN();
    return T{1};
  }
  const T alpha = std::exp(m - m_new);  // 0 when m was -inf
  l = l * alpha + exp_shift_sum(s, n, m_new);
  m = m_new;
  return alpha;
}

}  // namespace

#if OI_ATTENTION_X86
__attribute__((target("avx2,f16c"))) void widen_f16_f16c(const std::byte* src, uint64_t count,
                                                         float* out) {
  uint64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < count; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    out[i] = _cvtsh_ss(h);
  }
}
#endif

bool attention_widen(const std::byte* data, uint32_t dtype, uint64_t first, uint64_t count,
                     float* out) {
  if (dtype == OI_DTYPE_BF16) {
    for (uint64_t i = 0; i < count; ++i) {
      uint16_t b;
      std::memcpy(&b, data + 2 * (first + i), 2);
      const uint32_t bits = uint32_t{b} << 16;
      std::memcpy(out + i, &bits, 4);
    }
    return true;
  }
#if OI_ATTENTION_X86
  static const bool f16c = __builtin_cpu_supports("avx2") && has_f16c();
  if (dtype == OI_DTYPE_F16 && f16c) {
    widen_f16_f16c(data + 2 * first, count, out);
    return true;
  }
#endif
  return false;
}

template <class T>
void attention_scores(const T* a, uint64_t lda, const T* b, uint64_t ldb, T* c, uint64_t ldc,
                      uint64_t m, uint64_t n, uint64_t k) {
  if (m == 0 || n == 0) return;
#if OPENINFER_CPU_HAVE_OPENBLAS
  if (k > 0 && blas_fits(m, n, k, lda, ldb, ldc)) {
    blas_scores(a, lda, b, ldb, c, ldc, int(m), int(n), int(k));
    return;
  }
#endif
  scores_loop(a, lda, b, ldb, c, ldc, m, n, k);
}

template <class T>
void attention_accumulate(const T* a, uint64_t lda, const T* b, uint64_t ldb, T* c, uint64_t ldc,
                          uint64_t m, uint64_t n, uint64_t k) {
  if (m == 0 || n == 0 || k == 0) return;
#if OPENINFER_CPU_HAVE_OPENBLAS
  if (blas_fits(m, n, k, lda, ldb, ldc)) {
    blas_accumulate(a, lda, b, ldb, c, ldc, int(m), int(n), int(k));
    return;
  }
#endif
  accumulate_loop(a, lda, b, ldb, c, ldc, m, n, k);
}

float attention_row_update(float* s, uint64_t n, float& m, float& l) {
  return row_update(s, n, m, l);
}
double attention_row_update(double* s, uint64_t n, double& m, double& l) {
  return row_update(s, n, m, l);
}

template void attention_scores<float>(const float*, uint64_t, const float*, uint64_t, float*,
                                      uint64_t, uint64_t, uint64_t, uint64_t);
template void attention_scores<double>(const double*, uint64_t, const double*, uint64_t, double*,
                                       uint64_t, uint64_t, uint64_t, uint64_t);
template void attention_accumulate<float>(const float*, uint64_t, const float*, uint64_t, float*,
                                          uint64_t, uint64_t, uint64_t, uint64_t);
template void attention_accumulate<double>(const double*, uint64_t, const double*, uint64_t,
                                           double*, uint64_t, uint64_t, uint64_t, uint64_t);

}  // namespace oi::cpu
