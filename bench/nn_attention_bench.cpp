// The CPU plugin's attention, rope and dequantize kernels (bench/nn_attention.sh runs the same
// cases in PyTorch and prints the ratios): each case calls the kernel through PluginRegistry /
// Backend::run, one warm-up then the median of N runs, one JSON line per case.
//
//   nn_attention_bench [--runs N] [--budget-s S] [--only CASE]
//
// Cases: one decode step (32 heads, Dh 128, a 2,048-token cache, Tq 1, causal) and a 512-token
// causal prefill (32 heads, Dh 128), in f32 and f16 (f16 has no torch peer); rope over [32, 512,
// 128] f32 at position 4096; dequantize of a 4096 x 4096 i8 matrix with a per-row scale and zero
// point to f32.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
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

  // f32 values in [-1, 1), i8 in [-128, 128), i32/i64 scalars set to `fill`.
  Operand make(DType dtype, std::vector<uint64_t> dims, uint32_t seed, int64_t fill = 0) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    const uint64_t bytes = n * oi::dtype_info(dtype).bits / 8;
    Operand op{dtype, std::move(dims), cpu_->alloc(bytes)};
    std::vector<std::byte> host(bytes);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    for (uint64_t i = 0; i < n; ++i) {
      if (dtype == DType::f32) {
        const float v = uni(rng);
        std::memcpy(host.data() + 4 * i, &v, 4);
      } else if (dtype == DType::f16) {
        const uint16_t v = oi::f32_to_f16_bits(uni(rng));
        std::memcpy(host.data() + 2 * i, &v, 2);
      } else if (dtype == DType::i8) {
        host[i] = static_cast<std::byte>(rng() & 0xff);
      } else if (dtype == DType::i32) {
        const auto v = static_cast<int32_t>(fill);
        std::memcpy(host.data() + 4 * i, &v, 4);
      }
    }
    cpu_->upload(*op.buffer, 0, host);
    return op;
  }

  const oi::Kernel& kernel(const std::string& op, std::vector<DType> ins, DType out,
                           oi::KernelMode mode = oi::KernelMode::Normal) {
    const oi::Kernel* k = cpu_->find_kernel(op, ins, out, mode);
    if (k == nullptr) throw std::runtime_error("the backend has no kernel for " + op);
    return *k;
  }

  void attention(const std::string& name, uint64_t heads, uint64_t tq, uint64_t tk, uint64_t d,
                 DType f32 = DType::f32) {
    if (!wanted(name)) return;
    Operand q = make(f32, {heads, tq, d}, 1), k = make(f32, {heads, tk, d}, 2),
            v = make(f32, {heads, tk, d}, 3), y = make(f32, {heads, tq, d}, 4);
    const oi::Kernel& kern = kernel("attention", {f32, f32, f32}, f32);
    std::vector<oi::KernelSetting> settings{{"causal", true}};
    std::vector<oi::TensorArg> ins{q.arg(), k.arg(), v.arg()}, outs{y.arg()};
    Timing t = time_calls(opt_, *cpu_, [&] { cpu_->run(kern, ins, outs, settings); });
    uint64_t visible = 0;  // causal: row i sees i + 1 + (tk - tq) keys
    for (uint64_t i = 0; i < tq; ++i) visible += i + 1 + (tk - tq);
    print_case(name, t, 4.0 * static_cast<double>(heads * visible * d));
  }

  void rope(const std::string& name) {
    if (!wanted(name)) return;
    Operand x = make(DType::f32, {32, 512, 128}, 1), y = make(DType::f32, {32, 512, 128}, 2);
    Operand pos = make(DType::i32, {}, 0, 4096);
    const oi::Kernel& kern = kernel("rope", {DType::f32, DType::i32}, DType::f32);
    std::vector<oi::TensorArg> ins{x.arg(), pos.arg()}, outs{y.arg()};
    Timing t = time_calls(opt_, *cpu_, [&] { cpu_->run(kern, ins, outs, {}); });
    print_case(name, t, 0);
  }

  void dequantize(const std::string& name) {
    if (!wanted(name)) return;
    const uint64_t n = 4096;
    Operand x = make(DType::i8, {n, n}, 1), zero = make(DType::i8, {n}, 2);
    Operand scale = make(DType::f32, {n}, 3), y = make(DType::f32, {n, n}, 4);
    const oi::Kernel& kern = kernel("dequantize", {DType::i8, DType::f32, DType::i8}, DType::f32);
    std::vector<oi::TensorArg> ins{x.arg(), scale.arg(), zero.arg()}, outs{y.arg()};
    std::vector<oi::KernelSetting> settings{{"axis", int64_t{0}}};
    Timing t = time_calls(opt_, *cpu_, [&] { cpu_->run(kern, ins, outs, settings); });
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
    bench.attention("attention_decode_f32_h32_d128_kv2048", 32, 1, 2048, 128);
    bench.attention("attention_prefill_causal_f32_h32_d128_t512", 32, 512, 512, 128);
    // f16 operands (converted to f32 tile by tile): no torch peer, for scale against f32.
    bench.attention("attention_decode_f16_h32_d128_kv2048", 32, 1, 2048, 128, DType::f16);
    bench.attention("attention_prefill_causal_f16_h32_d128_t512", 32, 512, 512, 128, DType::f16);
    bench.rope("rope_f32_h32_t512_d128");
    bench.dequantize("dequantize_i8_f32_4096x4096");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nn_attention_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
