// The CPU plugin's conv, max_pool, avg_pool and batch_norm kernels (bench/nn_spatial.sh runs
// the same cases in PyTorch and prints the ratios): each case calls the kernel through
// PluginRegistry / Backend::run, one warm-up then the median of N runs, one JSON line per case.
//
//   nn_spatial_bench [--runs N] [--budget-s S] [--only CASE]
//
// Cases (f32, batch 1): a 3x3 conv [1, 64, 56, 56] -> 64 channels with pads 1 and a bias (a
// ResNet-18 layer1 conv), a depthwise 3x3 conv on [1, 256, 28, 28] (group 256, pads 1), a 1x1
// conv [1, 256, 28, 28] -> 512 with stride 2, the 7x7 stride-2 stem conv of ResNet-18 on
// [1, 3, 224, 224], its 3x3 stride-2 max_pool on [1, 64, 112, 112], a global 7x7 avg_pool on
// [1, 512, 7, 7] and a batch_norm on [1, 64, 56, 56].
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernel_bench.hpp"
#include "openinfer/dtype.hpp"
#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_host.hpp"

namespace {

using namespace kernel_bench;
using oi::DType;

class Bench {
 public:
  Bench(std::shared_ptr<oi::Backend> cpu, Options opt) : cpu_(std::move(cpu)), opt_(opt) {}

  bool wanted(const std::string& name) const {
    return opt_.only.empty() || name.rfind(opt_.only, 0) == 0;
  }

  // f32 values in [lo, hi) (f16: those values rounded).
  Operand make(std::vector<uint64_t> dims, uint32_t seed, float lo = -1.0f, float hi = 1.0f,
               DType dtype = DType::f32) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    std::vector<float> host(n);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uni(lo, hi);
    for (float& v : host) v = uni(rng);
    if (dtype == DType::f16) {
      std::vector<uint16_t> half(n);
      for (uint64_t i = 0; i < n; ++i) half[i] = oi::f32_to_f16_bits(host[i]);
      Operand op{dtype, std::move(dims), cpu_->alloc(n * 2)};
      cpu_->upload(*op.buffer, 0, std::as_bytes(std::span(half)));
      return op;
    }
    Operand op{DType::f32, std::move(dims), cpu_->alloc(n * 4)};
    cpu_->upload(*op.buffer, 0, std::as_bytes(std::span(host)));
    return op;
  }

  const oi::Kernel& kernel(const std::string& op, std::vector<DType> ins) {
    const oi::Kernel* k = cpu_->find_kernel(op, ins, ins[0], oi::KernelMode::Normal);
    if (k == nullptr) throw std::runtime_error("the backend has no kernel for " + op);
    return *k;
  }

  void conv(const std::string& name, std::vector<uint64_t> x_dims, std::vector<uint64_t> w_dims,
            uint64_t stride, uint64_t pad, uint64_t group, DType dt = DType::f32) {
    if (!wanted(name)) return;
    const uint64_t oh = (x_dims[2] + 2 * pad - w_dims[2]) / stride + 1;
    const uint64_t ow = (x_dims[3] + 2 * pad - w_dims[3]) / stride + 1;
    Operand x = make(x_dims, 1, -1, 1, dt), w = make(w_dims, 2, -1, 1, dt);
    Operand b = make({w_dims[0]}, 3, -1, 1, dt);
    Operand y = make({x_dims[0], w_dims[0], oh, ow}, 4, -1, 1, dt);
    const oi::Kernel& kern = kernel("conv", {dt, dt, dt});
    const auto s = static_cast<int64_t>(stride), p = static_cast<int64_t>(pad);
    std::vector<oi::KernelSetting> settings{{"strides", std::vector<int64_t>{s, s}},
                                            {"pads", std::vector<int64_t>{p, p, p, p}},
                                            {"group", static_cast<int64_t>(group)}};
    std::vector<oi::TensorArg> ins{x.arg(), w.arg(), b.arg()}, outs{y.arg()};
    Timing t = time_calls(opt_, *cpu_, [&] { cpu_->run(kern, ins, outs, settings); });
    const double macs =
        static_cast<double>(x_dims[0] * w_dims[0] * oh * ow * w_dims[1] * w_dims[2] * w_dims[3]);
    print_case(name, t, 2 * macs);
  }

  void pool(const std::string& name, const std::string& op, std::vector<uint64_t> x_dims,
            uint64_t k, uint64_t stride, uint64_t pad) {
    if (!wanted(name)) return;
    const uint64_t o = (x_dims[2] + 2 * pad - k) / stride + 1;
    Operand x = make(x_dims, 1), y = make({x_dims[0], x_dims[1], o, o}, 2);
    const oi::Kernel& kern = kernel(op, {DType::f32});
    const auto ki = static_cast<int64_t>(k), s = static_cast<int64_t>(stride),
               p = static_cast<int64_t>(pad);
    std::vector<oi::KernelSetting> settings{{"kernel", std::vector<int64_t>{ki, ki}},
                                            {"strides", std::vector<int64_t>{s, s}},
                                            {"pads", std::vector<int64_t>{p, p, p, p}}};
    std::vector<oi::TensorArg> ins{x.arg()}, outs{y.arg()};
    Timing t = time_calls(opt_, *cpu_, [&] { cpu_->run(kern, ins, outs, settings); });
    print_case(name, t, 0);
  }

  void batch_norm(const std::string& name, std::vector<uint64_t> x_dims) {
    if (!wanted(name)) return;
    const uint64_t c = x_dims[1];
    Operand x = make(x_dims, 1), y = make(x_dims, 2), scale = make({c}, 3), bias = make({c}, 4),
            mean = make({c}, 5), var = make({c}, 6, 0.5f, 1.5f);
    const DType f32 = DType::f32;
    const oi::Kernel& kern = kernel("batch_norm", {f32, f32, f32, f32, f32});
    std::vector<oi::TensorArg> ins{x.arg(), scale.arg(), bias.arg(), mean.arg(), var.arg()},
        outs{y.arg()};
    Timing t = time_calls(opt_, *cpu_, [&] { cpu_->run(kern, ins, outs, {}); });
    print_case(name, t, 0);
  }

 private:
  std::shared_ptr<oi::Backend> cpu_;
  Options opt_;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string backend_name = "cpu";  // vulkan: the same cases on the GPU (calls submit and wait)
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      opt.runs = std::max(3, std::stoi(argv[++i]));
    } else if (arg == "--calls" && i + 1 < argc) {
      opt.calls = std::max(1, std::stoi(argv[++i]));
    } else if (arg == "--budget-s" && i + 1 < argc) {
      opt.budget_s = std::stod(argv[++i]);
    } else if (arg == "--only" && i + 1 < argc) {
      opt.only = argv[++i];
    } else if (arg == "--backend" && i + 1 < argc) {
      backend_name = argv[++i];
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--runs N] [--budget-s S] [--only CASE] [--backend cpu|vulkan] [--calls N]\n",
          argv[0]);
      return 2;
    }
  }
  try {
    auto registry =
        oi::PluginRegistry::discover(oi::plugin_search_path({}, OPENINFER_BENCH_PLUGIN_DIR));
    auto cpu = registry.backend(backend_name);
    std::printf(
        "{\"impl\":\"openinfer\",\"info\":\"%s backend device: %s, hardware threads %u\"}\n",
        backend_name.c_str(), cpu->device_name().c_str(), std::thread::hardware_concurrency());
    Bench bench(cpu, opt);
    bench.conv("conv3x3_f32_1x64x56x56_to64", {1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, 1);
    bench.conv("conv3x3_f16_1x64x56x56_to64", {1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, 1, DType::f16);
    bench.conv("conv_depthwise3x3_f32_1x256x28x28", {1, 256, 28, 28}, {256, 1, 3, 3}, 1, 1, 256);
    bench.conv("conv1x1s2_f32_1x256x28x28_to512", {1, 256, 28, 28}, {512, 256, 1, 1}, 2, 0, 1);
    bench.conv("conv7x7s2_f32_1x3x224x224_to64", {1, 3, 224, 224}, {64, 3, 7, 7}, 2, 3, 1);
    bench.pool("max_pool3x3s2_f32_1x64x112x112", "max_pool", {1, 64, 112, 112}, 3, 2, 1);
    bench.pool("avg_pool7x7_f32_1x512x7x7", "avg_pool", {1, 512, 7, 7}, 7, 1, 0);
    bench.batch_norm("batch_norm_f32_1x64x56x56", {1, 64, 56, 56});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nn_spatial_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
