// The one instantiation of oneTBB's parallel_for behind parallel_ranges (parallel.hpp).
#include "parallel.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace oi::cpu {

void parallel_chunks(uint64_t count, uint64_t grain, RangeFn fn) {
  tbb::parallel_for(
      tbb::blocked_range<uint64_t>(0, count, grain),
      [fn](const tbb::blocked_range<uint64_t>& r) { fn.call(fn.callable, r.begin(), r.end()); });
}

}  // namespace oi::cpu
