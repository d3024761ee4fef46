// Parallel loops for large tensors (oneTBB); small ones run inline to avoid scheduling cost.
// The oneTBB loop itself is compiled once (parallel.cpp) and reached through a plain function
// pointer: instantiated in every kernel's template, it made the kernel files with many dtype
// pairs (cast, add) the slowest of the build, most of all under the sanitizers.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

namespace oi::cpu {

// Elements below which a loop is not worth splitting across threads.
inline constexpr uint64_t kParallelThreshold = 1u << 15;

// A borrowed fn(begin, end): the callable's address and a function that calls it.
struct RangeFn {
  const void* callable;
  void (*call)(const void* callable, uint64_t begin, uint64_t end);
};

// Calls fn over chunks of [0, count) of at least `grain` elements, in parallel (oneTBB).
void parallel_chunks(uint64_t count, uint64_t grain, RangeFn fn);

// Calls fn(begin, end) over [0, count), in parallel chunks when `count * cost_per_item` is
// large. Chunks never overlap, so fn may write its own range freely.
template <class Fn>
void parallel_ranges(uint64_t count, uint64_t cost_per_item, Fn&& fn) {
  if (count == 0) return;
  if (count < 2 || count * cost_per_item < kParallelThreshold) {
    fn(uint64_t{0}, count);
    return;
  }
  uint64_t grain = kParallelThreshold / (cost_per_item ? cost_per_item : 1);
  using F = std::remove_reference_t<Fn>;
  parallel_chunks(count, grain ? grain : 1,
                  RangeFn{std::addressof(fn), [](const void* f, uint64_t begin, uint64_t end) {
                            (*static_cast<F*>(const_cast<void*>(f)))(begin, end);
                          }});
}

}  // namespace oi::cpu
