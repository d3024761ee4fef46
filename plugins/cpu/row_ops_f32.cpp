#include "row_ops_f32.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "exp_avx2.hpp"

namespace oi::cpu {

#if defined(__x86_64__)
namespace {

#define OI_AVX2_FMA __attribute__((target("avx2,fma")))

// Fewer values than this run on the calling thread: a second worker would start too late.
constexpr uint64_t kInlineValues = uint64_t{1} << 15;
// Values per task: a few microseconds of work, far above oneTBB's cost per task.
constexpr uint64_t kChunkValues = uint64_t{1} << 14;

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// fn(begin, end) over [0, rows), in chunks of about kChunkValues values. Not one even share per
// worker: a sleeping worker can take tens of microseconds to wake, and smaller chunks let the
// calling thread do the rest meanwhile instead of waiting for a late half.
template <class Fn>
void over_rows(uint64_t rows, uint64_t len, const Fn& fn) {
  if (rows < 2 || rows * len < kInlineValues) {
    fn(uint64_t{0}, rows);
    return;
  }
  const uint64_t grain = std::max<uint64_t>(1, kChunkValues / len);
  tbb::parallel_for(
      tbb::blocked_range<uint64_t>(0, rows, grain),
      [&fn](const tbb::blocked_range<uint64_t>& r) { fn(r.begin(), r.end()); },
      tbb::simple_partitioner());
}

OI_AVX2_FMA float hsum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
}

OI_AVX2_FMA float hmax(__m256 v) {
  const __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(t, _mm_movehdup_ps(t)));
}

// The row's largest value, NaN skipped (a NaN makes the sum of e^(x - m), so the row, NaN).
OI_AVX2_FMA float row_max(const float* x, uint64_t n) {
  const __m256 ninf = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256 m0 = ninf, m1 = ninf, m2 = ninf, m3 = ninf;
  uint64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    m0 = _mm256_max_ps(_mm256_loadu_ps(x + j), m0);
    m1 = _mm256_max_ps(_mm256_loadu_ps(x + j + 8), m1);
    m2 = _mm256_max_ps(_mm256_loadu_ps(x + j + 16), m2);
    m3 = _mm256_max_ps(_mm256_loadu_ps(x + j + 24), m3);
  }
  for (; j + 8 <= n; j += 8) m0 = _mm256_max_ps(_mm256_loadu_ps(x + j), m0);
  float m = hmax(_mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3)));
  for (; j < n; ++j)
    if (x[j] > m) m = x[j];
  return m;
}

// Sum of e^(x - m), each term stored in e (nullptr: not stored; e may be x). Four vectors per
// step: e^x is a long dependent chain, so independent ones keep the FP pipes busy.
OI_AVX2_FMA float exp_sum(const float* x, float* e, uint64_t n, float m) {
  const __m256 vm = _mm256_set1_ps(m);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
         s3 = _mm256_setzero_ps();
  uint64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    const __m256 p0 = exp_nonpositive_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j), vm));
    const __m256 p1 = exp_nonpositive_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j + 8), vm));
    const __m256 p2 = exp_nonpositive_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j + 16), vm));
    const __m256 p3 = exp_nonpositive_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j + 24), vm));
    if (e != nullptr) {
      _mm256_storeu_ps(e + j, p0);
      _mm256_storeu_ps(e + j + 8, p1);
      _mm256_storeu_ps(e + j + 16, p2);
      _mm256_storeu_ps(e + j + 24, p3);
    }
    s0 = _mm256_add_ps(s0, p0);
    s1 = _mm256_add_ps(s1, p1);
    s2 = _mm256_add_ps(s2, p2);
    s3 = _mm256_add_ps(s3, p3);
  }
  for (; j + 8 <= n; j += 8) {
    const __m256 p = exp_nonpositive_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j), vm));
    if (e != nullptr) _mm256_storeu_ps(e + j, p);
    s0 = _mm256_add_ps(s0, p);
  }
  float sum = hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; j < n; ++j) {
    const float p = std::exp(x[j] - m);
    if (e != nullptr) e[j] = p;
    sum += p;
  }
  return sum;
}

// y[j] = x[j] * a
OI_AVX2_FMA void scale_row(const float* x, float* y, uint64_t n, float a) {
  const __m256 va = _mm256_set1_ps(a);
  uint64_t j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, _mm256_mul_ps(_mm256_loadu_ps(x + j), va));
  for (; j < n; ++j) y[j] = x[j] * a;
}

// y[j] = (x[j] - m) - b
OI_AVX2_FMA void shift_row(const float* x, float* y, uint64_t n, float m, float b) {
  const __m256 vm = _mm256_set1_ps(m), vb = _mm256_set1_ps(b);
  uint64_t j = 0;
  for (; j + 8 <= n; j += 8)
    _mm256_storeu_ps(y + j, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(x + j), vm), vb));
  for (; j < n; ++j) y[j] = (x[j] - m) - b;
}

OI_AVX2_FMA void softmax_row(const float* x, float* y, uint64_t n, bool log) {
  const float m = row_max(x, n);
  if (log) {
    shift_row(x, y, n, m, std::log(exp_sum(x, nullptr, n, m)));
  } else {
    const float sum = exp_sum(x, y, n, m);
    scale_row(y, y, n, 1.0f / sum);  // NaN in, NaN out
  }
}

OI_AVX2_FMA float row_sum(const float* x, uint64_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
         s3 = _mm256_setzero_ps();
  uint64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + j));
    s1 = _mm256_add_ps(s1, _mm256_loadu_ps(x + j + 8));
    s2 = _mm256_add_ps(s2, _mm256_loadu_ps(x + j + 16));
    s3 = _mm256_add_ps(s3, _mm256_loadu_ps(x + j + 24));
  }
  for (; j + 8 <= n; j += 8) s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + j));
  float s = hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; j < n; ++j) s += x[j];
  return s;
}

struct DeviationSums {
  float sum, squares;  // of d = x - mean, and of d^2
};

OI_AVX2_FMA DeviationSums deviation_sums(const float* x, uint64_t n, float mean) {
  const __m256 vm = _mm256_set1_ps(mean);
  __m256 d0 = _mm256_setzero_ps(), d1 = _mm256_setzero_ps(), q0 = _mm256_setzero_ps(),
         q1 = _mm256_setzero_ps();
  uint64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m256 a = _mm256_sub_ps(_mm256_loadu_ps(x + j), vm);
    const __m256 b = _mm256_sub_ps(_mm256_loadu_ps(x + j + 8), vm);
    d0 = _mm256_add_ps(d0, a);
    d1 = _mm256_add_ps(d1, b);
    q0 = _mm256_fmadd_ps(a, a, q0);
    q1 = _mm256_fmadd_ps(b, b, q1);
  }
  for (; j + 8 <= n; j += 8) {
    const __m256 a = _mm256_sub_ps(_mm256_loadu_ps(x + j), vm);
    d0 = _mm256_add_ps(d0, a);
    q0 = _mm256_fmadd_ps(a, a, q0);
  }
  DeviationSums s{hsum(_mm256_add_ps(d0, d1)), hsum(_mm256_add_ps(q0, q1))};
  for (; j < n; ++j) {
    const float d = x[j] - mean;
    s.sum += d;
    s.squares += d * d;
  }
  return s;
}

OI_AVX2_FMA void norm_row(const float* x, const float* scale, const float* bias, float* y,
                          uint64_t n, float eps, bool rms) {
  const float len = static_cast<float>(n);
  float mean = rms ? 0.0f : row_sum(x, n) / len;
  const DeviationSums s = deviation_sums(x, n, mean);
  float var = s.squares / len;
  if (!rms) {
    // The rounding error of the f32 mean, measured by the deviations' own sum, is added back
    // (the corrected two-pass variance), so rows far from 0 keep their precision.
    const float c = s.sum / len;
    mean += c;
    var = std::max(0.0f, var - c * c);
  }
  const float inv = 1.0f / std::sqrt(var + eps);
  const __m256 vm = _mm256_set1_ps(mean), vi = _mm256_set1_ps(inv);
  uint64_t j = 0;
  if (bias != nullptr) {
    for (; j + 8 <= n; j += 8) {
      const __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + j), vm), vi);
      _mm256_storeu_ps(y + j,
                       _mm256_fmadd_ps(d, _mm256_loadu_ps(scale + j), _mm256_loadu_ps(bias + j)));
    }
  } else {
    for (; j + 8 <= n; j += 8) {
      const __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + j), vm), vi);
      _mm256_storeu_ps(y + j, _mm256_mul_ps(d, _mm256_loadu_ps(scale + j)));
    }
  }
  for (; j < n; ++j) y[j] = (x[j] - mean) * inv * scale[j] + (bias != nullptr ? bias[j] : 0.0f);
}

}  // namespace

bool softmax_rows_f32(const float* x, float* y, uint64_t rows, uint64_t len, bool log) {
  if (!cpu_has_avx2_fma()) return false;
  if (len == 0) return true;
  over_rows(rows, len, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) softmax_row(x + r * len, y + r * len, len, log);
  });
  return true;
}

bool norm_rows_f32(const float* x, const float* scale, const float* bias, float* y, uint64_t rows,
                   uint64_t len, float eps, bool rms) {
  if (!cpu_has_avx2_fma()) return false;
  if (len == 0) return true;
  over_rows(rows, len, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r)
      norm_row(x + r * len, scale, rms ? nullptr : bias, y + r * len, len, eps, rms);
  });
  return true;
}

#else

bool softmax_rows_f32(const float*, float*, uint64_t, uint64_t, bool) {
  return false;
}
bool norm_rows_f32(const float*, const float*, const float*, float*, uint64_t, uint64_t, float,
                   bool) {
  return false;
}

#endif

}  // namespace oi::cpu
