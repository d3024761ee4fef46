#include "blas_matmul.hpp"

#if OPENINFER_CPU_HAVE_OPENBLAS
#include <cblas.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <climits>
#include <mutex>

// OpenBLAS's pthread build stops its thread pool with this (not in cblas.h; absent from other
// builds, hence weak).
extern "C" void blas_thread_shutdown_(void) __attribute__((weak));
#endif

namespace oi::cpu {

#if OPENINFER_CPU_HAVE_OPENBLAS
namespace {

// Below this many multiply-adds the call and packing overhead outweighs the plain loop. Measured
// (examples/silero_vad): a [128, 192] x [192, 1] product took ~300 us in the loop and ~10 us in
// sgemm, so BLAS wins from a few thousand multiply-adds on.
constexpr uint64_t kMinWork = uint64_t{1} << 12;
// Smallest tile side handed to one BLAS call: thinner tiles repack the other operand too often.
constexpr uint64_t kMinTile = 64;

void gemm(const float* a, const float* b, float* c, uint64_t m, uint64_t k, uint64_t n,
          uint64_t lda, uint64_t ldb, uint64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(lda),
              b, static_cast<blasint>(ldb), 0.0f, c, static_cast<blasint>(ldc));
}

void gemm(const double* a, const double* b, double* c, uint64_t m, uint64_t k, uint64_t n,
          uint64_t lda, uint64_t ldb, uint64_t ldc) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a, static_cast<blasint>(lda),
              b, static_cast<blasint>(ldb), 0.0, c, static_cast<blasint>(ldc));
}

uint64_t ceil_div(uint64_t x, uint64_t y) {
  return (x + y - 1) / y;
}

}  // namespace

// OpenBLAS's pthread pool would oversubscribe the cores oneTBB already uses: keep every BLAS
// call on the calling thread. The pool is also stopped, because its threads start at load time
// spinning for work (about 2^28 cycles each) and took a core from oneTBB's workers meanwhile:
// a conv measured 2.9 instead of 1.5 ms for the first few hundred milliseconds of a process.
void blas_single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] {
    openblas_set_num_threads(1);
    if (blas_thread_shutdown_ != nullptr) blas_thread_shutdown_();
  });
}

std::string blas_kernel_name() {
  const char* core = openblas_get_corename();
  return std::string("OpenBLAS ") + (core ? core : "unknown");
}

template <class T>
bool blas_matmul(const std::byte* a, const std::byte* b, std::byte* out, uint64_t batches,
                 const uint64_t* a_matrix, const uint64_t* b_matrix, uint64_t M, uint64_t K,
                 uint64_t N) {
  if (M == 0 || K == 0 || N == 0 || batches == 0) return false;
  if (M > INT_MAX || K > INT_MAX || N > INT_MAX) return false;
  if (M * K * N * batches < kMinWork) return false;
  for (const void* p :
       {static_cast<const void*>(a), static_cast<const void*>(b), static_cast<const void*>(out)}) {
    if (reinterpret_cast<uintptr_t>(p) % alignof(T) != 0) return false;
  }
  blas_single_threaded();
  const T* pa = reinterpret_cast<const T*>(a);
  const T* pb = reinterpret_cast<const T*>(b);
  T* po = reinterpret_cast<T*>(out);

  // About two tiles per worker: split each matrix by rows first, then by columns, never below
  // kMinTile, and not at all once there are enough batches.
  const auto workers = static_cast<uint64_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const uint64_t wanted = ceil_div(2 * workers, batches);
  const uint64_t row_blocks = std::clamp<uint64_t>(wanted, 1, std::max<uint64_t>(1, M / kMinTile));
  const uint64_t col_blocks =
      std::clamp<uint64_t>(ceil_div(wanted, row_blocks), 1, std::max<uint64_t>(1, N / kMinTile));
  const uint64_t rows = ceil_div(M, row_blocks), cols = ceil_div(N, col_blocks);
  const uint64_t per_batch = row_blocks * col_blocks;
  auto tile = [&](uint64_t t) {
    const uint64_t batch = t / per_batch, r = (t % per_batch) / col_blocks, c = t % col_blocks;
    const uint64_t i0 = r * rows, j0 = c * cols;
    if (i0 >= M || j0 >= N) return;
    const uint64_t m = std::min(rows, M - i0), n = std::min(cols, N - j0);
    gemm(pa + a_matrix[batch] * M * K + i0 * K, pb + b_matrix[batch] * K * N + j0,
         po + batch * M * N + i0 * N + j0, m, K, n, K, N, N);
  };
  const uint64_t tiles = batches * per_batch;
  if (tiles == 1) {
    tile(0);
  } else {
    tbb::parallel_for(tbb::blocked_range<uint64_t>(0, tiles, 1),
                      [&](const tbb::blocked_range<uint64_t>& range) {
                        for (uint64_t t = range.begin(); t < range.end(); ++t) tile(t);
                      });
  }
  return true;
}

template <class T>
bool blas_gemm(const T* a, const T* b, T* c, uint64_t m, uint64_t k, uint64_t n, uint64_t lda,
               uint64_t ldb, uint64_t ldc) {
  if (m > INT_MAX || k > INT_MAX || n > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
    return false;
  blas_single_threaded();
  gemm(a, b, c, m, k, n, lda, ldb, ldc);
  return true;
}

#else

void blas_single_threaded() {}

std::string blas_kernel_name() {
  return "no BLAS";
}

template <class T>
bool blas_gemm(const T*, const T*, T*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) {
  return false;
}

template <class T>
bool blas_matmul(const std::byte*, const std::byte*, std::byte*, uint64_t, const uint64_t*,
                 const uint64_t*, uint64_t, uint64_t, uint64_t) {
  return false;
}

#endif

template bool blas_matmul<float>(const std::byte*, const std::byte*, std::byte*, uint64_t,
                                 const uint64_t*, const uint64_t*, uint64_t, uint64_t, uint64_t);
template bool blas_gemm<float>(const float*, const float*, float*, uint64_t, uint64_t, uint64_t,
                               uint64_t, uint64_t, uint64_t);
template bool blas_gemm<double>(const double*, const double*, double*, uint64_t, uint64_t, uint64_t,
                                uint64_t, uint64_t, uint64_t);
template bool blas_matmul<double>(const std::byte*, const std::byte*, std::byte*, uint64_t,
                                  const uint64_t*, const uint64_t*, uint64_t, uint64_t, uint64_t);

}  // namespace oi::cpu
