// f16 matmul on the Vulkan backend: exact checks at odd shapes, offsets and broadcast batches,
// then (--bench) the speed of square products. Run once as it is and once with
// OPENINFER_VULKAN_COOPMAT=force (kernels/matmul_coop.cpp: tensor cores wherever the device has
// them) or =off (the generic shader). Operands are k/8 for k in [-8, 8]: exact in f16, their
// products exact multiples of 1/64, and every sum of fewer than 2^18 of them exact in f32 in any
// order, so each output must equal the exact dot product rounded once to f16, bit for bit, in any
// summation order (the op rules' bound is one f16 ulp; this data leaves no room for it).
//
//   vulkan_f16_matmul [--bench] [--sizes N,N,...] [--variants "V;V;..." [--rounds R]]
//
// --variants compares tunings in one process: each V is `default` or space-separated
// NAME=VALUE settings of the environment (OPENINFER_VULKAN_COOPMAT_TILE=... and the like, read
// by the plugin on every call). Each variant runs the exact checks and the sampled outputs with
// its settings, then the variants are timed in turn, R rounds (default 5) of each, so that a
// slow spell of the device falls on all of them; each one's median and its runs are printed.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "bench_variants.hpp"
#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_host.hpp"

using oi::DType;
using Clock = std::chrono::steady_clock;

namespace {

uint16_t eighth(uint64_t i, uint64_t salt) {
  const int k = static_cast<int>(((i + salt) * 2654435761ull >> 11) % 17) - 8;
  return oi::f32_to_f16_bits(static_cast<float>(k) / 8);
}

uint64_t numel(const std::vector<uint64_t>& d) {
  uint64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

struct Case {
  std::vector<uint64_t> a, b, y;             // dims
  uint64_t a_off = 0, b_off = 0, y_off = 0;  // element offsets
};

std::string text(const Case& c) {
  std::string t;
  for (const auto* d : {&c.a, &c.b}) {
    t += t.empty() ? "[" : " x [";
    for (size_t i = 0; i < d->size(); ++i) t += (i ? "," : "") + std::to_string((*d)[i]);
    t += "]";
  }
  return t + " offsets " + std::to_string(c.a_off) + "," + std::to_string(c.b_off) + "," +
         std::to_string(c.y_off);
}

class F16Matmul {
 public:
  F16Matmul(std::shared_ptr<oi::Backend> gpu, const oi::Kernel& mm, uint64_t n)
      : gpu_(gpu), mm_(mm), ha_(n), hb_(n) {
    for (uint64_t i = 0; i < n; ++i) ha_[i] = eighth(i, 1), hb_[i] = eighth(i, 7);
    a_ = gpu->alloc(n * 2);
    b_ = gpu->alloc(n * 2);
    y_ = gpu->alloc(n * 2);
    gpu->upload(*a_, 0, std::as_bytes(std::span(ha_)));
    gpu->upload(*b_, 0, std::as_bytes(std::span(hb_)));
  }

  void run(const Case& c) {
    oi::TensorArg ins[] = {{DType::f16, c.a, a_.get(), c.a_off * 2},
                           {DType::f16, c.b, b_.get(), c.b_off * 2}};
    oi::TensorArg outs[] = {{DType::f16, c.y, y_.get(), c.y_off * 2}};
    gpu_->run(mm_, ins, outs, {});
  }

  // Runs once; checks every output (or about `samples` of them) and that the halves just
  // before and after the output kept their sentinel. Returns the number of wrong values.
  size_t check(const Case& c, uint64_t samples = 0) {
    const uint64_t count = numel(c.y);
    const uint16_t sentinel = 0x7bff;
    std::vector<uint16_t> fill(count + 2, sentinel);
    gpu_->upload(*y_, (c.y_off - 1) * 2, std::as_bytes(std::span(fill)));
    run(c);
    std::vector<uint16_t> y(count + 2);
    gpu_->download(*y_, (c.y_off - 1) * 2, std::as_writable_bytes(std::span(y)));
    size_t bad = (y.front() != sentinel) + (y.back() != sentinel);
    const uint64_t M = c.a[c.a.size() - 2], K = c.a.back(), N = c.b.back();
    const size_t rank = c.y.size() - 2;
    // Samples step by count / samples + 1 outputs, so that they walk across the columns too.
    const uint64_t step = samples == 0 ? 1 : count / samples + 1;
    for (uint64_t e = 0; e < count; e += step) {
      uint64_t rest = e / (M * N), ia = 0, ib = 0, sa = 1, sb = 1;  // numpy batch broadcasting
      for (size_t d = rank; d-- > 0;) {
        const uint64_t at = rest % c.y[d];
        rest /= c.y[d];
        if (d + c.a.size() >= c.y.size()) {
          const uint64_t extent = c.a[d + c.a.size() - c.y.size()];
          if (extent != 1) ia += at * sa;
          sa *= extent;
        }
        if (d + c.b.size() >= c.y.size()) {
          const uint64_t extent = c.b[d + c.b.size() - c.y.size()];
          if (extent != 1) ib += at * sb;
          sb *= extent;
        }
      }
      const uint64_t i = e / N % M, j = e % N;
      double want = 0;
      for (uint64_t k = 0; k < K; ++k) {
        want += double(oi::f16_bits_to_f32(ha_[c.a_off + (ia * M + i) * K + k])) *
                oi::f16_bits_to_f32(hb_[c.b_off + (ib * K + k) * N + j]);
      }
      const uint16_t got = y[e + 1], expect = oi::f64_to_f16_bits(want);
      if (got != expect && bad++ < 5) {
        std::cout << "  " << text(c) << ": output " << e << " is " << oi::f16_bits_to_f32(got)
                  << ", want " << oi::f16_bits_to_f32(expect) << "\n";
      }
    }
    return bad;
  }

  double seconds_per_run(const Case& c, int inner, int repeats = 5, double warm_s = 0.3) {
    // Warm-up, 0.3 s of runs: pipelines are created on first use, and on the H200 runs soon
    // after a process start were at times up to 4x slower (docs/vulkan.md; clocks, perhaps).
    const auto warm = Clock::now();
    do {
      for (int i = 0; i < inner; ++i) run(c);
      gpu_->synchronize();
    } while (std::chrono::duration<double>(Clock::now() - warm).count() < warm_s);
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r) {
      const auto start = Clock::now();
      for (int i = 0; i < inner; ++i) run(c);
      gpu_->synchronize();
      t.push_back(std::chrono::duration<double>(Clock::now() - start).count() / inner);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

 private:
  std::shared_ptr<oi::Backend> gpu_;
  const oi::Kernel& mm_;
  std::vector<uint16_t> ha_, hb_;
  std::shared_ptr<oi::DeviceBuffer> a_, b_, y_;
};

std::vector<Case> checks() {
  std::vector<Case> list;
  // Shapes on and off the tiles and the 16-byte vectors; odd offsets take the per-half paths.
  for (uint64_t m : {1, 5, 16, 64, 100, 129, 256}) {
    for (uint64_t k : {8, 16, 40, 33, 256}) {
      for (uint64_t n : {8, 24, 130, 257}) {
        list.push_back({{m, k}, {k, n}, {m, n}, 8, 16, 8});
      }
    }
  }
  list.push_back({{77, 61}, {61, 45}, {77, 45}, 3, 5, 7});
  list.push_back({{128, 64}, {64, 128}, {128, 128}, 1, 1, 1});
  list.push_back({{3, 70, 48}, {48, 40}, {3, 70, 40}, 8, 8, 8});  // b broadcast over batches
  list.push_back({{2, 1, 33, 20}, {3, 20, 19}, {2, 3, 33, 19}, 9, 2, 5});  // both broadcast
  // Whole tiles and an output on 16 bytes: results straight from the accumulators (DIRECT_OUT).
  list.push_back({{2, 256, 40}, {40, 512}, {2, 256, 512}, 8, 16, 8});
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  bool bench = false;
  std::vector<uint64_t> sizes{1024, 2048, 4096};
  std::vector<Variant> variants;
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--bench") {
      bench = true;
    } else if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::string list = argv[++i];
      for (size_t at = 0; at < list.size();) {
        const size_t end = std::min(list.find(',', at), list.size());
        sizes.push_back(std::strtoull(list.substr(at, end - at).c_str(), nullptr, 10));
        at = end + 1;
      }
    } else if (arg == "--variants" && i + 1 < argc) {
      variants = parse_variants(argv[++i]);
      bench = true;
    } else if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else {
      std::cerr << "usage: vulkan_f16_matmul [--bench] [--sizes N,N,...] [--variants \"V;V;...\" "
                   "[--rounds R]]\n";
      return 2;
    }
  }
  const char* dir = std::getenv("OPENINFER_TEST_PLUGIN_DIR");
  auto registry = oi::PluginRegistry::discover({dir != nullptr ? dir : PLUGIN_DIR});
  auto gpu = registry.backend("vulkan");
  const char* policy = std::getenv("OPENINFER_VULKAN_COOPMAT");
  std::cout << "device: " << gpu->device_name()
            << "\nOPENINFER_VULKAN_COOPMAT=" << (policy ? policy : "(unset)") << "\n";
  if (gpu->device_name().find("tensor cores") == std::string::npos) {
    std::cout << "tensor cores: none on this device (no VK_NV_cooperative_matrix): the checks "
                 "run the generic shader\n";
  }
  const auto* mm =
      gpu->find_kernel("matmul", {{DType::f16, DType::f16}}, DType::f16, oi::KernelMode::Normal);
  if (mm == nullptr) {
    std::cerr << "no f16 matmul kernel\n";
    return 1;
  }
  uint64_t biggest = 1 << 20;
  if (bench) {
    for (uint64_t s : sizes) biggest = std::max(biggest, s * s + 64);
  }
  F16Matmul f16(gpu, *mm, biggest);
  const auto run_checks = [&] {
    size_t bad = 0, cases = 0;
    for (const Case& c : checks()) {
      bad += f16.check(c);
      ++cases;
    }
    std::cout << "checks: " << cases << " shapes, " << bad << " wrong outputs\n";
    return bad;
  };
  const auto square = [](uint64_t s) { return Case{{s, s}, {s, s}, {s, s}, 8, 8, 8}; };
  const auto tflops = [](uint64_t s, double t) { return 2.0 * s * s * s / t / 1e12; };
  size_t bad = 0;
  if (variants.empty()) {
    bad += run_checks();
    if (bench) {
      for (uint64_t s : sizes) {
        const size_t wrong = f16.check(square(s), 4096);
        const double t = f16.seconds_per_run(square(s), s >= 4096 ? 10 : 30);
        std::cout << "matmul f16 " << s << "^3: " << t * 1e3 << " ms, " << tflops(s, t)
                  << " TFLOP/s (" << wrong << " wrong of 4096 sampled)\n";
        bad += wrong;
      }
    }
    return bad == 0 ? 0 : 1;
  }
  // Variants: checks and samples with each one's settings, then rounds of timings in turn.
  std::vector<std::vector<size_t>> wrong(variants.size());
  for (size_t v = 0; v < variants.size(); ++v) {
    std::cout << "variant " << v << ": " << variants[v].label << "\n";
    try {
      apply(variants[v]);
      const size_t b = run_checks();
      for (uint64_t s : sizes) wrong[v].push_back(f16.check(square(s), 4096));
      bad += b;
    } catch (const std::exception& e) {
      std::cout << "variant " << v << " failed: " << e.what() << "\n";
      variants[v].failed = true;
      ++bad;
    }
  }
  for (size_t si = 0; si < sizes.size(); ++si) {
    const uint64_t s = sizes[si];
    std::vector<std::vector<double>> times(variants.size());
    for (int r = 0; r < rounds; ++r) {
      for (size_t v = 0; v < variants.size(); ++v) {
        if (variants[v].failed) continue;
        apply(variants[v]);
        times[v].push_back(f16.seconds_per_run(square(s), s >= 4096 ? 10 : 30, 3, 0.1));
      }
    }
    for (size_t v = 0; v < variants.size(); ++v) {
      if (variants[v].failed) continue;
      std::vector<double> t = times[v];
      std::sort(t.begin(), t.end());
      std::cout << "variant " << v << " matmul f16 " << s << "^3: " << t[t.size() / 2] * 1e3
                << " ms, " << tflops(s, t[t.size() / 2]) << " TFLOP/s median of " << t.size()
                << " (runs";
      for (double x : times[v]) std::cout << " " << static_cast<int>(tflops(s, x) + 0.5);
      std::cout << ") (" << wrong[v][si] << " wrong of 4096 sampled) [" << variants[v].label
                << "]\n";
      bad += wrong[v][si];
    }
  }
  apply(Variant{});
  return bad == 0 ? 0 : 1;
}
