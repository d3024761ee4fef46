// Parallel loops for large tensors (oneTBB); small ones run inline to avoid scheduling cost.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>

namespace oi::cpu {

// Elements below which a loop is not worth splitting across threads.
inline constexpr uint64_t kParallelThreshold = 1u << 15;

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
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, count, grain ? grain : 1),
                    [&fn](const tbb::blocked_range<uint64_t>& r) { fn(r.begin(), r.end()); });
}

}  // namespace oi::cpu
