// The timing and output of the kernel benchmarks (nn_attention_bench, nn_spatial_bench,
// nn_rows_bench, nn_math_bench): one warm-up call, then the median of up to `runs` calls within
// a time budget, one JSON line per case for the bench/*.sh scripts to pair with their PyTorch
// peers; and the copy probes the bandwidth figures are measured against.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "openinfer/dtype.hpp"
#include "openinfer/plugin_host.hpp"

namespace kernel_bench {

using Clock = std::chrono::steady_clock;
using oi::DType;

struct Options {
  int runs = 11;
  double budget_s = 3.0;
  std::string only;
  int calls = 1;  // calls per timed sample (--calls): see time_calls
};

struct Timing {
  double median_ms = 0, min_ms = 0;
  int runs = 0;
};

Timing time_median(const Options& opt, const std::function<void()>& fn) {
  fn();
  std::vector<double> ms;
  const auto begin = Clock::now();
  while (static_cast<int>(ms.size()) < opt.runs) {
    const auto t0 = Clock::now();
    fn();
    const auto t1 = Clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (ms.size() >= 3 && std::chrono::duration<double>(t1 - begin).count() > opt.budget_s) break;
  }
  std::sort(ms.begin(), ms.end());
  Timing t;
  t.runs = static_cast<int>(ms.size());
  t.min_ms = ms.front();
  t.median_ms =
      ms.size() % 2 == 1 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  return t;
}

// A device backend runs asynchronously: each sample times `opt.calls` back-to-back calls and one
// synchronize and reports the time per call. With calls > 1 the submit-and-wait latency of one
// call is spread over the batch, as it is over a model's consecutive nodes.
Timing time_calls(const Options& opt, oi::Backend& backend, const std::function<void()>& call) {
  Timing t = time_median(opt, [&] {
    for (int c = 0; c < opt.calls; ++c) call();
    backend.synchronize();
  });
  t.median_ms /= opt.calls;
  t.min_ms /= opt.calls;
  return t;
}

void print_case(const std::string& name, const Timing& t, double flops) {
  std::printf(
      "{\"impl\":\"openinfer\",\"case\":\"%s\",\"median_ms\":%.4f,\"min_ms\":%.4f,\"runs\":%d,"
      "\"flops\":%.0f}\n",
      name.c_str(), t.median_ms, t.min_ms, t.runs, flops);
  std::fflush(stdout);
}

// A bandwidth case's JSON line: bytes moved, GB/s at the median and at the best run.
void print_bytes(const std::string& name, const Timing& t, double bytes) {
  std::printf(
      "{\"impl\":\"openinfer\",\"case\":\"%s\",\"median_ms\":%.4f,\"min_ms\":%.4f,\"runs\":%d,"
      "\"bytes\":%.0f,\"gbps\":%.3f,\"gbps_best\":%.3f}\n",
      name.c_str(), t.median_ms, t.min_ms, t.runs, bytes, bytes / (t.median_ms * 1e6),
      bytes / (t.min_ms * 1e6));
  std::fflush(stdout);
}

// dst = src over `threads` std::threads, each on its own contiguous slice.
void threaded_copy(const std::byte* src, std::byte* dst, size_t bytes, unsigned threads) {
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      const size_t lo = bytes * t / threads, hi = bytes * (t + 1) / threads;
      std::memcpy(dst + lo, src + lo, hi - lo);
    });
  for (auto& th : pool) th.join();
}

// Copies of `bytes` bytes, counted as read + write (STREAM's convention).
void copy_probe(const Options& opt, const std::string& name, size_t bytes) {
  if (!opt.only.empty() && name.rfind(opt.only, 0) != 0) return;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::unique_ptr<std::byte[]> a(new std::byte[bytes]), b(new std::byte[bytes]);
  std::memset(a.get(), 1, bytes);  // first touch, so no page faults are timed
  std::memset(b.get(), 2, bytes);
  Timing t = time_median(opt, [&] { threaded_copy(a.get(), b.get(), bytes, threads); });
  print_bytes(name, t, 2.0 * static_cast<double>(bytes));
}

struct Operand {
  DType dtype;
  std::vector<uint64_t> dims;
  std::shared_ptr<oi::DeviceBuffer> buffer;
  oi::TensorArg arg() const { return oi::TensorArg{dtype, dims, buffer.get(), 0}; }
};

}  // namespace kernel_bench
