// f32/f64 matmul through OpenBLAS's cblas_sgemm/cblas_dgemm when the plugin was built with it
// (plugins/CMakeLists.txt finds Debian's libopenblas-dev); kernels/matmul.cpp falls back to its
// own loop when this returns false.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace oi::cpu {

// Keeps OpenBLAS on the calling thread (oneTBB splits the work) and stops its thread pool; once
// per process, before the first product (device_open calls it, so the pool's spinning threads
// do not slow the first ops either). Nothing without OpenBLAS.
void blas_single_threaded();

// The BLAS and the kernel it chose for this processor ("OpenBLAS Cooperlake"; OpenBLAS picks
// by CPU and by OPENBLAS_CORETYPE), or "no BLAS": shown in the device name, so benchmarks
// and test logs say which summation order the f32 matmul had.
std::string blas_kernel_name();

// One matmul of [M, K] x [K, N] -> [M, N] per batch, every operand contiguous and row-major:
// batch b multiplies the matrix at index a_matrix[b] of `a` with b_matrix[b] of `b` into matrix
// b of `out`. `out` must not overlap `a` or `b`. OpenBLAS runs single-threaded; the (batch,
// row block, column block) tiles are spread over oneTBB's workers instead, so BLAS threads
// never compete with the plugin's own. Returns false (writing nothing) when OpenBLAS is not
// linked in, the shapes are too small to be worth it or exceed BLAS's int range, or a pointer
// is not aligned for T.
template <class T>
bool blas_matmul(const std::byte* a, const std::byte* b, std::byte* out, uint64_t batches,
                 const uint64_t* a_matrix, const uint64_t* b_matrix, uint64_t M, uint64_t K,
                 uint64_t N);

// One row-major product c[m, n] = a[m, k] x b[k, n] with leading dimensions, on the calling
// thread (callers split the work). False where OpenBLAS is not built in.
template <class T>
bool blas_gemm(const T* a, const T* b, T* c, uint64_t m, uint64_t k, uint64_t n, uint64_t lda,
               uint64_t ldb, uint64_t ldc);

}  // namespace oi::cpu
