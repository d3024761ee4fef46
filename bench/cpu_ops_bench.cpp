// CPU backend kernels against a STREAM-style bandwidth probe (issue 7): times each case by
// calling the CPU plugin's kernels through PluginRegistry / Backend::run, the median of N runs
// after one warm-up, and prints one JSON line per case. bench/cpu_ops.sh runs the same cases
// in numpy and PyTorch and prints the ratios.
//
//   cpu_ops_bench [--runs N] [--budget-s S] [--only CASE]
//
// Each case runs until it has N timed runs (default 11) or has used S seconds (default 3),
// but at least 3 runs. The MLP is direct kernel calls (matmul, add with a broadcast bias,
// relu in place), not a Simulator graph. "bytes" counts what the op must read and write once
// (STREAM's convention: no write-allocate traffic), so GB/s = bytes / median time.
#include <algorithm>
#include <chrono>
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

#include "openinfer/dtype.hpp"
#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_host.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using oi::DType;

struct Options {
  int runs = 11;
  double budget_s = 3.0;
  std::string only;
};

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  int runs = 0;
};

// Warm-up once, then time fn until `runs` runs or the budget is spent (at least 3 runs).
Timing time_median(const Options& opt, const std::function<void()>& fn) {
  fn();
  std::vector<double> ms;
  const auto begin = Clock::now();
  while (static_cast<int>(ms.size()) < opt.runs) {
    const auto t0 = Clock::now();
    fn();
    const auto t1 = Clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    const double spent = std::chrono::duration<double>(t1 - begin).count();
    if (ms.size() >= 3 && spent > opt.budget_s) break;
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  Timing t;
  t.runs = static_cast<int>(sorted.size());
  t.min_ms = sorted.front();
  t.median_ms = sorted.size() % 2 == 1
                    ? sorted[sorted.size() / 2]
                    : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  return t;
}

void print_case(const std::string& name, const Timing& t, double bytes, double flops,
                const std::string& extra = {}) {
  std::printf(
      "{\"impl\":\"openinfer\",\"case\":\"%s\",\"median_ms\":%.4f,\"min_ms\":%.4f,\"runs\":%d,"
      "\"bytes\":%.0f,\"flops\":%.0f,\"gbps\":%.3f,\"gflops\":%.3f%s}\n",
      name.c_str(), t.median_ms, t.min_ms, t.runs, bytes, flops,
      bytes > 0 ? bytes / (t.median_ms * 1e6) : 0.0, flops > 0 ? flops / (t.median_ms * 1e6) : 0.0,
      extra.c_str());
  std::fflush(stdout);
}

// STREAM copy (a = b) and triad (a = b + s * c) over `threads` std::threads, each on its own
// contiguous slice (first touched by the thread that uses it).
void stream_probe(const Options& opt, size_t n) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  auto parallel = [&](auto body) {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const size_t lo = n * t / threads, hi = n * (t + 1) / threads;
        body(lo, hi);
      });
    }
    for (auto& th : pool) th.join();
  };
  parallel([&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      a[i] = 1.0;
      b[i] = 2.0;
      c[i] = 0.5;
    }
  });
  const double scalar = 3.0;
  const std::string extra = ",\"threads\":" + std::to_string(threads);
  if (opt.only.empty() || opt.only == "stream_copy") {
    Timing t = time_median(opt, [&] {
      parallel([&](size_t lo, size_t hi) {
        double* __restrict dst = a.get();
        const double* __restrict src = b.get();
        for (size_t i = lo; i < hi; ++i) dst[i] = src[i];
      });
    });
    print_case("stream_copy", t, 2.0 * 8 * static_cast<double>(n), 0, extra);
  }
  if (opt.only.empty() || opt.only == "stream_triad") {
    Timing t = time_median(opt, [&] {
      parallel([&](size_t lo, size_t hi) {
        double* __restrict dst = a.get();
        const double* __restrict x = b.get();
        const double* __restrict y = c.get();
        for (size_t i = lo; i < hi; ++i) dst[i] = x[i] + scalar * y[i];
      });
    });
    print_case("stream_triad", t, 3.0 * 8 * static_cast<double>(n), 0, extra);
  }
  volatile double sink = a[n / 2];
  (void)sink;
}

// A tensor in a CPU backend buffer, filled from the host.
struct Operand {
  DType dtype;
  std::vector<uint64_t> dims;
  std::shared_ptr<oi::DeviceBuffer> buffer;

  oi::TensorArg arg() const { return oi::TensorArg{dtype, dims, buffer.get(), 0}; }
};

uint64_t numel(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

class Bench {
 public:
  Bench(std::shared_ptr<oi::Backend> cpu, Options opt) : cpu_(std::move(cpu)), opt_(opt) {}

  bool wanted(const std::string& name) const { return opt_.only.empty() || opt_.only == name; }

  // Values in [-1, 1) (f32/f16/bf16) or [-64, 64) (i8): nothing overflows or turns special.
  Operand make(DType dtype, std::vector<uint64_t> dims, uint32_t seed) {
    const uint64_t n = numel(dims);
    const uint64_t bytes = n * oi::dtype_info(dtype).bits / 8;
    Operand op{dtype, std::move(dims), cpu_->alloc(bytes)};
    std::vector<std::byte> host(bytes);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    for (uint64_t i = 0; i < n; ++i) {
      if (dtype == DType::f32) {
        float v = uni(rng);
        std::memcpy(host.data() + 4 * i, &v, 4);
      } else if (dtype == DType::f16) {
        uint16_t v = oi::f32_to_f16_bits(uni(rng));
        std::memcpy(host.data() + 2 * i, &v, 2);
      } else if (dtype == DType::bf16) {
        uint16_t v = oi::f32_to_bf16_bits(uni(rng));
        std::memcpy(host.data() + 2 * i, &v, 2);
      } else if (dtype == DType::i8) {
        host[i] = static_cast<std::byte>(static_cast<int8_t>(rng() % 128) - 64);
      }
    }
    cpu_->upload(*op.buffer, 0, host);
    return op;
  }

  const oi::Kernel& kernel(const std::string& op, std::vector<DType> ins, DType out,
                           oi::KernelMode mode = oi::KernelMode::Normal) {
    const oi::Kernel* k = cpu_->find_kernel(op, ins, out, mode);
    if (k == nullptr) throw std::runtime_error("cpu backend has no kernel for " + op);
    return *k;
  }

  void run(const oi::Kernel& k, std::vector<oi::TensorArg> ins, std::vector<oi::TensorArg> outs,
           const std::vector<oi::KernelSetting>& settings = {}) {
    cpu_->run(k, ins, outs, settings);
  }

  void binary(const std::string& name, const std::string& op, DType dtype, uint64_t n) {
    if (!wanted(name)) return;
    Operand a = make(dtype, {n}, 1), b = make(dtype, {n}, 2), c = make(dtype, {n}, 3);
    const oi::Kernel& k = kernel(op, {dtype, dtype}, dtype);
    Timing t = time_median(opt_, [&] { run(k, {a.arg(), b.arg()}, {c.arg()}); });
    const double elem = oi::dtype_info(dtype).bits / 8.0;
    print_case(name, t, 3.0 * elem * static_cast<double>(n), static_cast<double>(n));
  }

  void relu(const std::string& name, uint64_t n) {
    if (!wanted(name)) return;
    Operand a = make(DType::f32, {n}, 1), c = make(DType::f32, {n}, 3);
    const oi::Kernel& k = kernel("relu", {DType::f32}, DType::f32);
    Timing t = time_median(opt_, [&] { run(k, {a.arg()}, {c.arg()}); });
    print_case(name, t, 2.0 * 4 * static_cast<double>(n), static_cast<double>(n));
  }

  void sum_axis(const std::string& name, uint64_t rows, uint64_t cols, int64_t axis) {
    if (!wanted(name)) return;
    Operand a = make(DType::f32, {rows, cols}, 1);
    Operand out = make(DType::f32, {axis == 0 ? cols : rows}, 2);
    const oi::Kernel& k = kernel("sum_axis", {DType::f32}, DType::f32);
    std::vector<oi::KernelSetting> settings{{"axes", std::vector<int64_t>{axis}}};
    Timing t = time_median(opt_, [&] { run(k, {a.arg()}, {out.arg()}, settings); });
    const double n = static_cast<double>(rows * cols);
    print_case(name, t, 4.0 * n + 4.0 * static_cast<double>(numel(out.dims)), n);
  }

  void matmul(const std::string& name, uint64_t m, uint64_t k_dim, uint64_t n) {
    if (!wanted(name)) return;
    Operand a = make(DType::f32, {m, k_dim}, 1), b = make(DType::f32, {k_dim, n}, 2);
    Operand c = make(DType::f32, {m, n}, 3);
    const oi::Kernel& k = kernel("matmul", {DType::f32, DType::f32}, DType::f32);
    Timing t = time_median(opt_, [&] { run(k, {a.arg(), b.arg()}, {c.arg()}); });
    print_case(name, t, 4.0 * static_cast<double>(m * k_dim + k_dim * n + m * n),
               2.0 * static_cast<double>(m * k_dim * n));
  }

  // x[64,512] -> 1024 -> relu -> 1024 -> relu -> 10: matmul, add (bias broadcast over rows),
  // relu in place; the last layer has no relu.
  void mlp(const std::string& name) {
    if (!wanted(name)) return;
    const uint64_t batch = 64;
    const std::vector<uint64_t> widths{512, 1024, 1024, 10};
    Operand x = make(DType::f32, {batch, widths[0]}, 1);
    std::vector<Operand> w, bias, hidden, summed;
    for (size_t l = 0; l + 1 < widths.size(); ++l) {
      w.push_back(make(DType::f32, {widths[l], widths[l + 1]}, 10 + static_cast<uint32_t>(l)));
      bias.push_back(make(DType::f32, {widths[l + 1]}, 20 + static_cast<uint32_t>(l)));
      hidden.push_back(make(DType::f32, {batch, widths[l + 1]}, 30));
      summed.push_back(make(DType::f32, {batch, widths[l + 1]}, 40));
    }
    const oi::Kernel& mm = kernel("matmul", {DType::f32, DType::f32}, DType::f32);
    const oi::Kernel& add = kernel("add", {DType::f32, DType::f32}, DType::f32);
    const oi::Kernel& relu_k = kernel("relu", {DType::f32}, DType::f32, oi::KernelMode::InPlace);
    double flops = 0;
    for (size_t l = 0; l + 1 < widths.size(); ++l) {
      flops += 2.0 * static_cast<double>(batch * widths[l] * widths[l + 1]);
    }
    Timing t = time_median(opt_, [&] {
      const Operand* in = &x;
      for (size_t l = 0; l < w.size(); ++l) {
        run(mm, {in->arg(), w[l].arg()}, {hidden[l].arg()});
        run(add, {hidden[l].arg(), bias[l].arg()}, {summed[l].arg()});
        if (l + 1 < w.size()) run(relu_k, {summed[l].arg()}, {summed[l].arg()});
        in = &summed[l];
      }
    });
    print_case(name, t, 0, flops, ",\"how\":\"direct kernel calls: matmul, add, relu inplace\"");
  }

 private:
  std::shared_ptr<oi::Backend> cpu_;
  Options opt_;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
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
    auto registry = oi::PluginRegistry::discover({OPENINFER_BENCH_PLUGIN_DIR});
    auto cpu = registry.backend("cpu");
    std::printf(
        "{\"impl\":\"openinfer\",\"info\":\"cpu backend device: %s, hardware threads %u\"}\n",
        cpu->device_name().c_str(), std::thread::hardware_concurrency());
    const uint64_t n16m = uint64_t{1} << 24;
    stream_probe(opt, n16m);
    Bench bench(cpu, opt);
    // A case that fails (a kernel missing, say) prints an error line; the others still run.
    auto attempt = [](const char* name, const std::function<void()>& fn) {
      try {
        fn();
      } catch (const std::exception& e) {
        std::printf("{\"impl\":\"openinfer\",\"case\":\"%s\",\"error\":\"%s\"}\n", name, e.what());
        std::fflush(stdout);
      }
    };
    attempt("add_f32_16M", [&] { bench.binary("add_f32_16M", "add", DType::f32, n16m); });
    attempt("mul_f32_16M", [&] { bench.binary("mul_f32_16M", "mul", DType::f32, n16m); });
    attempt("relu_f32_16M", [&] { bench.relu("relu_f32_16M", n16m); });
    attempt("add_i8_16M", [&] { bench.binary("add_i8_16M", "add", DType::i8, n16m); });
    attempt("add_f16_16M", [&] { bench.binary("add_f16_16M", "add", DType::f16, n16m); });
    attempt("add_bf16_16M", [&] { bench.binary("add_bf16_16M", "add", DType::bf16, n16m); });
    attempt("sum_axis0_f32_4096x4096",
            [&] { bench.sum_axis("sum_axis0_f32_4096x4096", 4096, 4096, 0); });
    attempt("sum_axis1_f32_4096x4096",
            [&] { bench.sum_axis("sum_axis1_f32_4096x4096", 4096, 4096, 1); });
    attempt("matmul_f32_1024", [&] { bench.matmul("matmul_f32_1024", 1024, 1024, 1024); });
    attempt("matmul_f32_2048", [&] { bench.matmul("matmul_f32_2048", 2048, 2048, 2048); });
    attempt("mlp_f32_b64_512_1024_1024_10", [&] { bench.mlp("mlp_f32_b64_512_1024_1024_10"); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpu_ops_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
