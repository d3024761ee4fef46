// The inner steps of the fused attention kernel (kernels/attention.cpp), for f32 (f8, bf16, f16
// and f32 compute in f32) and f64: the two tile products, through OpenBLAS when the plugin has
// it (single-threaded: the kernel spreads tiles over oneTBB), and the online-softmax update of
// one score row, vectorised with AVX2+FMA where the CPU has them (chosen at run time, so the
// plugin still loads on a baseline x86-64).
#pragma once

#include <cstddef>
#include <cstdint>

namespace oi::cpu {

// c[m x n] = a[m x k] · b[n x k]ᵀ, row-major with leading dims lda, ldb, ldc.
template <class T>
void attention_scores(const T* a, uint64_t lda, const T* b, uint64_t ldb, T* c, uint64_t ldc,
                      uint64_t m, uint64_t n, uint64_t k);

// c[m x n] += a[m x k] · b[k x n], row-major with leading dims lda, ldb, ldc.
template <class T>
void attention_accumulate(const T* a, uint64_t lda, const T* b, uint64_t ldb, T* c, uint64_t ldc,
                          uint64_t m, uint64_t n, uint64_t k);

// One key block of one query row, online softmax: s[0, n) holds the row's scaled and masked
// scores (-inf where masked). Updates the running max `m` and sum `l`, overwrites s[0, n)
// with e^(s - m_new) (0 where masked), and returns e^(m_old - m_new), the factor by which the
// row's output accumulated so far must be multiplied. A row with every score -inf so far keeps
// m = -inf, l = 0 and gets s all 0 (so its output stays 0, not NaN). A NaN score makes the
// row's sum, and so its output, NaN.
float attention_row_update(float* s, uint64_t n, float& m, float& l);
double attention_row_update(double* s, uint64_t n, double& m, double& l);

// Elements [first, first + count) of an f16 or bf16 tensor widened (exactly) to f32 in `out`:
// F16C for f16 where the CPU has it, a shift for bf16. Returns false, writing nothing, for
// other dtypes (and for f16 without F16C), which the caller converts element by element.
bool attention_widen(const std::byte* data, uint32_t dtype, uint64_t first, uint64_t count,
                     float* out);

}  // namespace oi::cpu
