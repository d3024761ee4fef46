// memcpy spread over a few threads, for the staging ring (command_stream.hpp): one thread's
// copy into or out of mapped memory stays well under the bus's speed on large transfers.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace oi::vulkan {

class ParallelCopy {
 public:
  ParallelCopy() = default;
  ParallelCopy(const ParallelCopy&) = delete;
  ParallelCopy& operator=(const ParallelCopy&) = delete;
  ~ParallelCopy();

  // Copies n bytes; from 1 MiB on in as many parts as threads() (the caller copies one).
  void copy(void* dst, const void* src, size_t n);
  // OPENINFER_VULKAN_COPY_THREADS, else min(4, hardware threads); read on first use.
  size_t threads();

 private:
  void worker(size_t index);
  void part(size_t index, size_t parts);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  uint64_t generation_ = 0;
  size_t remaining_ = 0;
  bool stop_ = false;
  std::byte* dst_ = nullptr;
  const std::byte* src_ = nullptr;
  size_t bytes_ = 0;
  size_t threads_ = 0;  // 0: not read yet
};

}  // namespace oi::vulkan
