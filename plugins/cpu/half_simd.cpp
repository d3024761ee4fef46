#include "half_simd.hpp"

#include <bit>
#include <cstring>

#include "openinfer/float_formats.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define OI_HALF_X86 1
#endif

namespace oi::cpu::half {
namespace {

// --- scalar: the reference rounding, also the tail of the vector loops ----------------------

uint16_t load_bits(const std::byte* p, uint64_t i) {
  uint16_t v;
  std::memcpy(&v, p + 2 * i, 2);
  return v;
}
void store_bits(std::byte* p, uint64_t i, uint16_t v) {
  std::memcpy(p + 2 * i, &v, 2);
}

template <Format F>
float widen(uint16_t h) {
  if constexpr (F == Format::BF16) {
    return bf16_bits_to_f32(h);
  } else {
    return f16_bits_to_f32(h);
  }
}
template <Format F>
uint16_t narrow(float f) {
  if constexpr (F == Format::BF16) {
    return f32_to_bf16_bits(f);
  } else {
    return f32_to_f16_bits(f);
  }
}

template <Arith A>
float arith(float a, float b, const BinaryRun& r) {
  if constexpr (A == Arith::Add) {
    return a + b;
  } else if constexpr (A == Arith::Sub) {
    return a - b;
  } else if constexpr (A == Arith::Mul) {
    return a * b;
  } else {
    if (b == 0.0f && r.has_mask) return r.mask;
    return a / b;
  }
}

float relu_f32(float a, const ReluParams& p) {
  float y = a >= 0.0f ? a : p.alpha * a;
  if (y == 0.0f) y = 0.0f;
  if (y < p.lo) y = p.lo;
  if (y > p.hi) y = p.hi;
  return y;
}

template <Format F, Arith A>
void binary_scalar(const BinaryRun& r, uint64_t begin) {
  for (uint64_t i = begin; i < r.n; ++i) {
    const float a = widen<F>(load_bits(r.a, i * r.a_step));
    const float b = widen<F>(load_bits(r.b, i * r.b_step));
    store_bits(r.out, i, narrow<F>(arith<A>(a, b, r)));
  }
}

template <Format F>
void relu_scalar(const std::byte* in, std::byte* out, uint64_t begin, uint64_t n,
                 const ReluParams& p) {
  for (uint64_t i = begin; i < n; ++i) {
    store_bits(out, i, narrow<F>(relu_f32(widen<F>(load_bits(in, i)), p)));
  }
}

#ifdef OI_HALF_X86
// --- AVX2 (+F16C): 8 elements per step ------------------------------------------------------
#define OI_AVX2 __attribute__((target("avx2,f16c"), always_inline)) inline

template <Format F>
OI_AVX2 __m256 load8(const std::byte* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (F == Format::F16) {
    return _mm256_cvtph_ps(h);
  } else {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
}

template <Format F>
OI_AVX2 __m256 broadcast8(const std::byte* p) {
  return _mm256_set1_ps(widen<F>(load_bits(p, 0)));
}

template <Format F>
OI_AVX2 __m128i narrow8(__m256 v) {
  if constexpr (F == Format::F16) {
    return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
  } else {
    const __m256i bits = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    const __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb), 16);
    const __m256i quiet_nan = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
    const __m256i is_nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const __m256i h = _mm256_blendv_epi8(rounded, quiet_nan, is_nan);
    // Every lane is in [0, 0xffff], so the saturating pack is exact; the permute puts the two
    // 128-bit halves' results next to each other.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(h, h), 0xd8);
    return _mm256_castsi256_si128(packed);
  }
}

OI_AVX2 void store8(std::byte* p, __m128i h, bool stream) {
  if (stream) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(p), h);
  } else {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), h);
  }
}

template <Arith A>
OI_AVX2 __m256 arith8(__m256 a, __m256 b, const BinaryRun& r) {
  if constexpr (A == Arith::Add) {
    return _mm256_add_ps(a, b);
  } else if constexpr (A == Arith::Sub) {
    return _mm256_sub_ps(a, b);
  } else if constexpr (A == Arith::Mul) {
    return _mm256_mul_ps(a, b);
  } else {
    const __m256 q = _mm256_div_ps(a, b);
    if (!r.has_mask) return q;
    const __m256 zero = _mm256_cmp_ps(b, _mm256_setzero_ps(), _CMP_EQ_OQ);
    return _mm256_blendv_ps(q, _mm256_set1_ps(r.mask), zero);
  }
}

// Scalar head up to a 16-byte aligned output, so that streaming stores may be used.
inline uint64_t head_to_align(const std::byte* out, uint64_t n) {
  const uint64_t mis = reinterpret_cast<uintptr_t>(out) % 16;
  if (mis % 2 != 0) return 0;  // odd addresses never align: plain stores throughout
  const uint64_t head = mis == 0 ? 0 : (16 - mis) / 2;
  return head < n ? head : n;
}

template <Format F, Arith A>
__attribute__((target("avx2,f16c"))) void binary_avx2(const BinaryRun& r) {
  const bool stream = r.stream && reinterpret_cast<uintptr_t>(r.out) % 2 == 0;
  uint64_t i = stream ? head_to_align(r.out, r.n) : 0;
  if (i != 0) {
    BinaryRun head = r;
    head.n = i;
    binary_scalar<F, A>(head, 0);
  }
  const __m256 a_bcast = r.a_step ? _mm256_setzero_ps() : broadcast8<F>(r.a);
  const __m256 b_bcast = r.b_step ? _mm256_setzero_ps() : broadcast8<F>(r.b);
  for (; i + 8 <= r.n; i += 8) {
    const __m256 a = r.a_step ? load8<F>(r.a + 2 * i) : a_bcast;
    const __m256 b = r.b_step ? load8<F>(r.b + 2 * i) : b_bcast;
    store8(r.out + 2 * i, narrow8<F>(arith8<A>(a, b, r)), stream);
  }
  if (stream) _mm_sfence();
  binary_scalar<F, A>(r, i);
}

template <Format F>
__attribute__((target("avx2,f16c"))) void relu_avx2(const std::byte* in, std::byte* out, uint64_t n,
                                                    const ReluParams& p) {
  const bool stream = p.stream && reinterpret_cast<uintptr_t>(out) % 2 == 0;
  uint64_t i = stream ? head_to_align(out, n) : 0;
  relu_scalar<F>(in, out, 0, i, p);
  const __m256 zero = _mm256_setzero_ps(), alpha = _mm256_set1_ps(p.alpha);
  const __m256 lo = _mm256_set1_ps(p.lo), hi = _mm256_set1_ps(p.hi);
  for (; i + 8 <= n; i += 8) {
    const __m256 a = load8<F>(in + 2 * i);
    __m256 y = _mm256_blendv_ps(_mm256_mul_ps(alpha, a), a, _mm256_cmp_ps(a, zero, _CMP_GE_OQ));
    y = _mm256_andnot_ps(_mm256_cmp_ps(y, zero, _CMP_EQ_OQ), y);  // -0.0 -> +0.0
    y = _mm256_blendv_ps(y, lo, _mm256_cmp_ps(y, lo, _CMP_LT_OQ));
    y = _mm256_blendv_ps(y, hi, _mm256_cmp_ps(y, hi, _CMP_GT_OQ));
    store8(out + 2 * i, narrow8<F>(y), stream);
  }
  if (stream) _mm_sfence();
  relu_scalar<F>(in, out, i, n, p);
}

bool cpu_has_avx2_f16c() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2")) return false;  // also checks the OS saves YMM state
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  return (ecx & bit_F16C) != 0;
}

const bool kHasAvx2 = cpu_has_avx2_f16c();
#else
const bool kHasAvx2 = false;
#endif

template <Format F, Arith A>
void binary_for(const BinaryRun& r) {
#ifdef OI_HALF_X86
  if (kHasAvx2) return binary_avx2<F, A>(r);
#endif
  binary_scalar<F, A>(r, 0);
}

template <Format F>
void binary_format(Arith op, const BinaryRun& r) {
  switch (op) {
    case Arith::Add:
      return binary_for<F, Arith::Add>(r);
    case Arith::Sub:
      return binary_for<F, Arith::Sub>(r);
    case Arith::Mul:
      return binary_for<F, Arith::Mul>(r);
    case Arith::Div:
      return binary_for<F, Arith::Div>(r);
  }
}

template <Format F>
void relu_format(const std::byte* in, std::byte* out, uint64_t n, const ReluParams& p) {
#ifdef OI_HALF_X86
  if (kHasAvx2) return relu_avx2<F>(in, out, n, p);
#endif
  relu_scalar<F>(in, out, 0, n, p);
}

}  // namespace

void binary(Format format, Arith op, const BinaryRun& run) {
  if (format == Format::F16) {
    binary_format<Format::F16>(op, run);
  } else {
    binary_format<Format::BF16>(op, run);
  }
}

void relu(Format format, const std::byte* in, std::byte* out, uint64_t n, const ReluParams& p) {
  if (format == Format::F16) {
    relu_format<Format::F16>(in, out, n, p);
  } else {
    relu_format<Format::BF16>(in, out, n, p);
  }
}

bool has_vector_path(Format) {
  return kHasAvx2;
}

}  // namespace oi::cpu::half
