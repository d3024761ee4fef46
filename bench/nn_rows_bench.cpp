// The CPU plugin's row ops over [64, 4096] f32 (issue 9: softmax and layer_norm "at >= 80% of
// memory bandwidth"; bench/nn_rows.sh runs the same cases in PyTorch and prints the ratios):
// softmax over the last axis, layer_norm with weight and bias, rms_norm and log_softmax, each
// through PluginRegistry / Backend::run, one warm-up then the median of N runs, one JSON line per
// case with the bytes it must move (input read + output written + weights, each once).
//
//   nn_rows_bench [--runs N] [--budget-s S] [--only CASE]
//
// Two bandwidth references, both on hardware_concurrency() std::threads: "stream_copy", a
// STREAM-style copy over 16M doubles (DRAM), and "copy_f32_64x4096", a memcpy of the cases' own
// 1 MiB (which stays in cache, as the cases' operands do between runs).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernel_bench.hpp"
#include "openinfer/dtype.hpp"
#include "openinfer/plugin_host.hpp"

namespace {

using namespace kernel_bench;
using oi::DType;

class Bench {
 public:
  Bench(std::shared_ptr<oi::Backend> cpu, Options opt) : cpu_(std::move(cpu)), opt_(opt) {}

  // op over x [rows, len] f32 with `weights` [len] operands after x.
  void row_op(const std::string& name, const std::string& op, uint64_t rows, uint64_t len,
              int weights) {
    if (!opt_.only.empty() && name.rfind(opt_.only, 0) != 0) return;
    Operand x = make({rows, len}, 1, -4.0f, 4.0f), y = make({rows, len}, 2);
    std::vector<Operand> w;
    for (int i = 0; i < weights; ++i) w.push_back(make({len}, 3 + i));
    std::vector<DType> types(1 + weights, DType::f32);
    const oi::Kernel* k = cpu_->find_kernel(op, types, DType::f32, oi::KernelMode::Normal);
    if (k == nullptr) throw std::runtime_error("the backend has no f32 kernel for " + op);
    std::vector<oi::TensorArg> ins{x.arg()}, outs{y.arg()};
    for (const Operand& o : w) ins.push_back(o.arg());
    Timing t = time_median(opt_, [&] {
      cpu_->run(*k, ins, outs, {});
      cpu_->synchronize();  // device backends run asynchronously
    });
    print_bytes(name, t, 4.0 * static_cast<double>(rows * len * 2 + len * weights));
  }

 private:
  // f32 values in [lo, hi).
  Operand make(std::vector<uint64_t> dims, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    Operand op{DType::f32, std::move(dims), cpu_->alloc(n * 4)};
    std::vector<float> host(n);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uni(lo, hi);
    for (float& v : host) v = uni(rng);
    cpu_->upload(*op.buffer, 0, std::as_bytes(std::span(host)));
    return op;
  }

  std::shared_ptr<oi::Backend> cpu_;
  Options opt_;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  opt.runs = 101;
  opt.budget_s = 2.0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      opt.runs = std::max(3, std::stoi(argv[++i]));
    } else if (arg == "--budget-s" && i + 1 < argc) {
      opt.budget_s = std::stod(argv[++i]);
    } else if (arg == "--only" && i + 1 < argc) {
      opt.only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--budget-s S] [--only CASE]\n", argv[0]);
      return 2;
    }
  }
  try {
    auto registry =
        oi::PluginRegistry::discover(oi::plugin_search_path({}, OPENINFER_BENCH_PLUGIN_DIR));
    auto cpu = registry.backend("cpu");
    std::printf(
        "{\"impl\":\"openinfer\",\"info\":\"cpu backend device: %s, hardware threads %u\"}\n",
        cpu->device_name().c_str(), std::thread::hardware_concurrency());
    copy_probe(opt, "stream_copy", size_t{16} << 20 << 3);  // 16M doubles
    copy_probe(opt, "copy_f32_64x4096", size_t{64} * 4096 * 4);
    Bench bench(cpu, opt);
    bench.row_op("softmax_f32_64x4096", "softmax", 64, 4096, 0);
    bench.row_op("layer_norm_f32_64x4096", "layer_norm", 64, 4096, 2);
    bench.row_op("rms_norm_f32_64x4096", "rms_norm", 64, 4096, 1);
    bench.row_op("log_softmax_f32_64x4096", "log_softmax", 64, 4096, 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nn_rows_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
