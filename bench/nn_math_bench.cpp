// The CPU plugin's elementwise math over f32 (the vectorised span functions of
// plugins/cpu/vector_math.hpp; bench/nn_math.sh runs the same cases in PyTorch and prints the
// ratios): exp, tanh, sigmoid, silu, gelu (both forms), erf, log and sin over [64, 4096] (1 MiB,
// in cache between runs) and 16M elements (64 MiB, from DRAM), each through PluginRegistry /
// Backend::run, one warm-up then the median of N runs, one JSON line per case with the bytes it
// must move (input read + output written, each once).
//
//   nn_math_bench [--runs N] [--budget-s S] [--only CASE] [--plugin-dir DIR]
//
// --plugin-dir times another build's CPU plugin (the old scalar path, for before/after). Copy
// probes on hardware_concurrency() std::threads: "stream_copy" (16M doubles) and memcpy over
// each case's own bytes ("copy_f32_64x4096", "copy_f32_16M").
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
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

struct MathCase {
  const char* name;  // the case's prefix, as nn_math_peers.py names it
  const char* op;
  const char* approximate;  // gelu's setting, else nullptr
  float lo, hi;             // the inputs' range
};

constexpr MathCase kCases[] = {
    {"exp", "exp", nullptr, -4.0f, 4.0f},         {"tanh", "tanh", nullptr, -4.0f, 4.0f},
    {"sigmoid", "sigmoid", nullptr, -4.0f, 4.0f}, {"silu", "silu", nullptr, -4.0f, 4.0f},
    {"gelu", "gelu", "none", -4.0f, 4.0f},        {"gelu_tanh", "gelu", "tanh", -4.0f, 4.0f},
    {"erf", "erf", nullptr, -4.0f, 4.0f},         {"log", "log", nullptr, 0.0f, 8.0f},
    {"sin", "sin", nullptr, -8.0f, 8.0f},
};

class Bench {
 public:
  Bench(std::shared_ptr<oi::Backend> cpu, Options opt) : cpu_(std::move(cpu)), opt_(opt) {}

  void math(const MathCase& c, const std::string& shape, std::vector<uint64_t> dims) {
    const std::string name = std::string(c.name) + "_f32_" + shape;
    if (!opt_.only.empty() && name.rfind(opt_.only, 0) != 0) return;
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    Operand x = make(dims, n, c.lo, c.hi), y = make(dims, n, 0.0f, 1.0f);
    const oi::Kernel* k =
        cpu_->find_kernel(c.op, std::vector{DType::f32}, DType::f32, oi::KernelMode::Normal);
    if (k == nullptr) throw std::runtime_error(std::string("no f32 kernel for ") + c.op);
    std::vector<oi::KernelSetting> settings;
    if (c.approximate) settings.push_back({"approximate", std::string(c.approximate)});
    const oi::TensorArg ins[] = {x.arg()}, outs[] = {y.arg()};
    Timing t = time_median(opt_, [&] {
      cpu_->run(*k, ins, outs, settings);
      cpu_->synchronize();
    });
    print_bytes(name, t, 8.0 * static_cast<double>(n));
  }

 private:
  // f32 values in [lo, hi), a fixed seed.
  Operand make(std::vector<uint64_t> dims, uint64_t n, float lo, float hi) {
    Operand op{DType::f32, std::move(dims), cpu_->alloc(n * 4)};
    std::vector<float> host(n);
    std::mt19937 rng(7);
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
  std::string plugin_dir = OPENINFER_BENCH_PLUGIN_DIR;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      opt.runs = std::max(3, std::stoi(argv[++i]));
    } else if (arg == "--budget-s" && i + 1 < argc) {
      opt.budget_s = std::stod(argv[++i]);
    } else if (arg == "--only" && i + 1 < argc) {
      opt.only = argv[++i];
    } else if (arg == "--plugin-dir" && i + 1 < argc) {
      plugin_dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--budget-s S] [--only CASE] [--plugin-dir DIR]\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    auto registry = plugin_dir == OPENINFER_BENCH_PLUGIN_DIR
                        ? oi::PluginRegistry::discover(oi::plugin_search_path({}, plugin_dir))
                        : oi::PluginRegistry::discover({std::filesystem::path(plugin_dir)});
    auto cpu = registry.backend("cpu");
    std::printf(
        "{\"impl\":\"openinfer\",\"info\":\"cpu backend device: %s, hardware threads %u, "
        "plugins from %s\"}\n",
        cpu->device_name().c_str(), std::thread::hardware_concurrency(), plugin_dir.c_str());
    copy_probe(opt, "stream_copy", size_t{16} << 20 << 3);  // 16M doubles
    copy_probe(opt, "copy_f32_64x4096", size_t{64} * 4096 * 4);
    copy_probe(opt, "copy_f32_16M", size_t{16} << 20 << 2);
    Bench bench(cpu, opt);
    for (const MathCase& c : kCases) bench.math(c, "64x4096", {64, 4096});
    for (const MathCase& c : kCases) bench.math(c, "16M", {uint64_t{16} << 20});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nn_math_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
