#include "parallel_copy.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace oi::vulkan {

ParallelCopy::~ParallelCopy() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

size_t ParallelCopy::threads() {
  if (threads_ == 0) {
    const long hw = static_cast<long>(std::max(1u, std::thread::hardware_concurrency()));
    // 8: on an H100 host (16 cores) 256 MiB moved at 34 GB/s up and 29 down with 8 threads,
    // 19 and 17 with 4, 5 with 1 (bench/README.md, the run of 2026-11-28).
    long n = std::min(8L, hw);
    if (const char* env = std::getenv("OPENINFER_VULKAN_COPY_THREADS"); env != nullptr) {
      const long v = std::strtol(env, nullptr, 10);
      if (v >= 1 && v <= 64) n = v;
    }
    threads_ = static_cast<size_t>(n);
  }
  return threads_;
}

void ParallelCopy::part(size_t index, size_t parts) {
  // Parts of whole cache lines; the last takes the rest.
  const size_t per = (bytes_ / parts + 63) / 64 * 64;
  const size_t begin = std::min(bytes_, index * per);
  const size_t end = index + 1 == parts ? bytes_ : std::min(bytes_, begin + per);
  if (end > begin) std::memcpy(dst_ + begin, src_ + begin, end - begin);
}

void ParallelCopy::worker(size_t index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    part(index, threads_);
    std::lock_guard lock(mutex_);
    if (--remaining_ == 0) done_.notify_one();
  }
}

void ParallelCopy::copy(void* dst, const void* src, size_t n) {
  const size_t parts = threads();
  if (parts == 1 || n < (1u << 20)) {
    std::memcpy(dst, src, n);
    return;
  }
  if (workers_.empty()) {
    for (size_t i = 1; i < parts; ++i) workers_.emplace_back([this, i] { worker(i); });
  }
  {
    std::lock_guard lock(mutex_);
    dst_ = static_cast<std::byte*>(dst);
    src_ = static_cast<const std::byte*>(src);
    bytes_ = n;
    remaining_ = parts - 1;
    ++generation_;
  }
  start_.notify_all();
  part(0, parts);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return remaining_ == 0; });
}

}  // namespace oi::vulkan
