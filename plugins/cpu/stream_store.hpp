// Non-temporal stores for outputs far larger than the cache: writing around the cache saves
// reading every output line before it is overwritten (a third of an elementwise op's memory
// traffic) and keeps the inputs cached.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace oi::cpu {

// Outputs of at least this many bytes that alias no input are streamed.
inline constexpr uint64_t kStreamOutputBytes = uint64_t{8} << 20;

// The widest streaming store this build has, in bytes (16: SSE2, 32: AVX), 0 for none.
inline constexpr size_t kStreamStoreBytes =
#if defined(__AVX__)
    32;
#elif defined(__SSE2__)
    16;
#else
    0;
#endif

// Whether store_stream does more than a plain store for batches of T (float or double).
template <class T>
constexpr bool can_stream() {
  if (!std::is_floating_point_v<T> || kStreamStoreBytes == 0) return false;
  return sizeof(xsimd::batch<T>) <= kStreamStoreBytes;
}
template <class T>
inline constexpr bool can_stream_v = can_stream<T>();

// p must be aligned to the batch's size.
template <class T, class A>
inline void store_stream(T* p, const xsimd::batch<T, A>& v) {
#if defined(__SSE2__)
  if constexpr (can_stream_v<T> && sizeof(v) == 16) {
    if constexpr (std::is_same_v<T, float>) {
      _mm_stream_ps(p, v);
    } else {
      _mm_stream_pd(p, v);
    }
    return;
  }
#if defined(__AVX__)
  if constexpr (can_stream_v<T> && sizeof(v) == 32) {
    if constexpr (std::is_same_v<T, float>) {
      _mm256_stream_ps(p, v);
    } else {
      _mm256_stream_pd(p, v);
    }
    return;
  }
#endif
#endif
  v.store_aligned(p);
}

// Orders the streamed stores before the chunk is reported done to another thread.
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace oi::cpu
