// The timing and output of the kernel benchmarks (nn_attention_bench, nn_spatial_bench): one
// warm-up call, then the median of up to `runs` calls within a time budget, one JSON line per
// case for the bench/*.sh scripts to pair with their PyTorch peers.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
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

struct Operand {
  DType dtype;
  std::vector<uint64_t> dims;
  std::shared_ptr<oi::DeviceBuffer> buffer;
  oi::TensorArg arg() const { return oi::TensorArg{dtype, dims, buffer.get(), 0}; }
};

}  // namespace kernel_bench
