// Speed of the Vulkan backend through the plugin host (bench/README.md, "Vulkan backend"):
// f32 add and relu over 64M elements, upload/download bandwidth, f32 matmul (square sizes and
// the M = 1 shapes of decoding), and the per-call cost of a 1,000-call chain of tiny adds. Each
// figure is the median of timed repetitions after a warm-up, by wall clock around the calls
// and a synchronize (runs are recorded into batches: docs/vulkan.md). add, relu and matmuls
// are timed as back-to-back runs (20 for add and relu, as bench/vulkan_gpu_peers.py times
// PyTorch's) with one synchronize, divided by their number: the GPU time of one, once the
// per-call cost hides behind the GPU work.
//
//   vulkan_bench [--matmul | --check | --no-matmul] [--quick] [--tiles BM,BN,BK,TM,TN;...]
//                [--gemv COLS,WG,UNROLL;...]
//
// --matmul: the matmul figures only. --quick: of those only the 4096^3 and 2048^3 squares (and
// the exact checks), for tile sweeps. --no-matmul: all but the matmul figures. --elements-m M:
// the elementwise and transfer figures on M Mi elements (default 64; lavapipe binds at most
// 128 MiB). --check: no figures, only the exact matmul checks at odd
// offsets (quick enough for lavapipe). --tiles / --gemv: also time each listed tile / GEMV split
// (through OPENINFER_VULKAN_MATMUL_TILE / _GEMV, kernels/matmul.cpp) next to the default pick.
// Every matmul run is checked: operands are multiples of 1/8, so sums are exact in f32 and each
// checked output (sampled for large shapes, all of them for the offset shapes) must equal the
// double-precision dot product. 4096^3 is also timed with one subnormal in A (unchecked), which
// takes the careful pass on devices that may flush subnormals (kernels/matmul.cpp).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "openinfer/plugin_host.hpp"

using oi::DType;
using Clock = std::chrono::steady_clock;

namespace {

double median_seconds(int reps, const std::function<void()>& fn) {
  fn();  // warm-up: pipelines are created on first use
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void print(const std::string& what, double seconds, double amount, const char* unit) {
  std::cout << what << ": " << seconds * 1e3 << " ms, " << amount / seconds << " " << unit << "\n";
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(sep, start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// k/8 for k in [-32, 32]: products and partial sums stay exact in f32 for K < 4096.
float eighth(uint64_t i, uint64_t salt) {
  return static_cast<float>(static_cast<int>(((i + salt) * 2654435761ull >> 11) % 65) - 32) / 8;
}

struct Shape {
  std::vector<uint64_t> a, b, y;             // dims
  uint64_t a_off = 0, b_off = 0, y_off = 0;  // element offsets
};

uint64_t numel(const std::vector<uint64_t>& d) {
  uint64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

class MatmulBench {
 public:
  // `n`: floats in each operand buffer (the timed shapes need 768 x 50257).
  MatmulBench(std::shared_ptr<oi::Backend> gpu, const oi::Kernel& mm, uint64_t n)
      : gpu_(gpu), mm_(mm) {
    ha_.resize(n);
    hb_.resize(n);
    for (uint64_t i = 0; i < n; ++i) ha_[i] = eighth(i, 1), hb_[i] = eighth(i, 7);
    a_ = gpu->alloc(n * 4);
    b_ = gpu->alloc(n * 4);
    y_ = gpu->alloc(n * 4);
    gpu->upload(*a_, 0, std::as_bytes(std::span(ha_)));
    gpu->upload(*b_, 0, std::as_bytes(std::span(hb_)));
  }

  // Runs once and checks `samples` outputs (0: all); returns the number of wrong ones.
  size_t check(const Shape& s, uint64_t samples) {
    run(s);
    const uint64_t count = numel(s.y);
    std::vector<float> y(count);
    gpu_->download(*y_, s.y_off * 4, std::as_writable_bytes(std::span(y)));
    const uint64_t M = s.a[s.a.size() - 2], K = s.a.back(), N = s.b.back();
    const size_t rank = s.y.size() - 2;
    size_t bad = 0;
    const uint64_t step = samples == 0 ? 1 : std::max<uint64_t>(1, count / samples + 1);
    for (uint64_t e = 0; e < count; e += step) {
      // The batch index of a and b for output e (numpy broadcasting, right-aligned).
      uint64_t rest = e / (M * N), ia = 0, ib = 0, sa = 1, sb = 1;
      for (size_t d = rank; d-- > 0;) {
        const uint64_t c = rest % s.y[d];
        rest /= s.y[d];
        if (d + s.a.size() >= s.y.size()) {
          const uint64_t extent = s.a[d + s.a.size() - s.y.size()];
          if (extent != 1) ia += c * sa;
          sa *= extent;
        }
        if (d + s.b.size() >= s.y.size()) {
          const uint64_t extent = s.b[d + s.b.size() - s.y.size()];
          if (extent != 1) ib += c * sb;
          sb *= extent;
        }
      }
      const uint64_t i = e / N % M, j = e % N;
      double want = 0;
      for (uint64_t k = 0; k < K; ++k) {
        want += double(ha_[s.a_off + (ia * M + i) * K + k]) * hb_[s.b_off + (ib * K + k) * N + j];
      }
      bad += y[e] != static_cast<float>(want);
    }
    return bad;
  }

  // Sets a's first element (host copy and device buffer) to `value`.
  void set_a0(float value) {
    ha_[0] = value;
    gpu_->upload(*a_, 0, std::as_bytes(std::span(ha_).first(1)));
  }

  // Per run, from `reps` timings of `inner` runs and a synchronize.
  double seconds(const Shape& s, int reps, int inner) {
    return median_seconds(reps,
                          [&] {
                            for (int i = 0; i < inner; ++i) run(s);
                            gpu_->synchronize();
                          }) /
           inner;
  }

 private:
  void run(const Shape& s) {
    oi::TensorArg ins[] = {{DType::f32, s.a, a_.get(), s.a_off * 4},
                           {DType::f32, s.b, b_.get(), s.b_off * 4}};
    oi::TensorArg outs[] = {{DType::f32, s.y, y_.get(), s.y_off * 4}};
    gpu_->run(mm_, ins, outs, {});
  }

  std::shared_ptr<oi::Backend> gpu_;
  const oi::Kernel& mm_;
  std::vector<float> ha_, hb_;
  std::shared_ptr<oi::DeviceBuffer> a_, b_, y_;
};

Shape square(uint64_t m) {
  return {{m, m}, {m, m}, {m, m}};
}

Shape gemv(uint64_t batches, uint64_t k, uint64_t n) {
  if (batches == 1) return {{1, k}, {k, n}, {1, n}};
  return {{batches, 1, k}, {batches, k, n}, {batches, 1, n}};
}

std::string dims_text(const Shape& s) {
  std::string text;
  for (const auto* d : {&s.a, &s.b}) {
    text += text.empty() ? "[" : " x [";
    for (size_t i = 0; i < d->size(); ++i) text += (i ? "," : "") + std::to_string((*d)[i]);
    text += "]";
  }
  return text;
}

// The square and GEMV figures, then the offset and broadcasting checks, for the current
// OPENINFER_VULKAN_MATMUL_* settings; returns the number of wrong outputs.
size_t matmul_figures(MatmulBench& bench, const std::string& label, bool squares, bool gemvs,
                      bool quick) {
  size_t bad = 0;
  if (squares) {
    std::vector<Shape> shapes{square(4096), square(2048)};
    if (!quick) {
      shapes.push_back(square(1024));
      shapes.push_back(Shape{{512, 768}, {768, 3072}, {512, 3072}});
    }
    for (const Shape& s : shapes) {
      const size_t wrong = bench.check(s, 4096);
      bad += wrong;
      const double flops = 2.0 * numel(s.y) * s.a.back();
      print("matmul f32 " + dims_text(s) + " [" + label + "]" +
                (wrong ? " WRONG " + std::to_string(wrong) : ""),
            bench.seconds(s, 5, flops > 1e11 ? 3 : 10), flops / 1e12, "TFLOP/s");
    }
    const Shape s = square(4096);
    const double flops = 2.0 * numel(s.y) * s.a.back();
    bench.set_a0(1e-40f);  // subnormal
    print("matmul f32 " + dims_text(s) + " [" + label + ", a subnormal in A]",
          bench.seconds(s, 3, 3), flops / 1e12, "TFLOP/s");
    bench.set_a0(eighth(0, 1));
  }
  if (quick) gemvs = false;
  if (gemvs) {
    const Shape tiny{{1, 1}, {1, 1}, {1, 1}};  // the per-call cost, for scale
    std::cout << "matmul f32 [1,1] x [1,1] [" << label << "]: " << bench.seconds(tiny, 5, 100) * 1e3
              << " ms\n";
    for (const Shape& s : {gemv(1, 768, 768), gemv(1, 768, 3072), gemv(1, 3072, 768),
                           gemv(1, 768, 50257), gemv(16, 1024, 1024)}) {
      const size_t wrong = bench.check(s, 4096);
      bad += wrong;
      const double bytes = 4.0 * numel(s.b);
      print("matmul f32 " + dims_text(s) + " [" + label + "]" +
                (wrong ? " WRONG " + std::to_string(wrong) : ""),
            bench.seconds(s, 5, 20), bytes / 1e9, "GB/s of B");
    }
  }
  // Odd element offsets, edges around every tile, batches broadcast both ways.
  const std::vector<Shape> offset_shapes{{{3, 1, 130, 67}, {2, 67, 131}, {3, 2, 130, 131}, 3, 1, 5},
                                         {{1, 1100}, {1100, 61}, {1, 61}, 1, 3, 7},
                                         {{4, 1, 70}, {70, 90}, {4, 1, 90}, 2, 5, 1},
                                         {{2, 3, 200}, {200, 259}, {2, 3, 259}, 7, 2, 3},
                                         {{259, 9}, {9, 140}, {259, 140}, 1, 1, 1}};
  size_t wrong = 0;
  for (const Shape& s : offset_shapes) wrong += bench.check(s, 0);
  std::cout << "matmul offsets and broadcasting [" << label
            << "]: " << (wrong ? std::to_string(wrong) + " WRONG" : "all exact") << "\n";
  return bad + wrong;
}

}  // namespace

int main(int argc, char** argv) {
  bool matmul_only = false, check_only = false, no_matmul = false, quick = false;
  uint64_t elements_m = 64;
  std::vector<std::string> tiles, gemv_splits;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--matmul") {
      matmul_only = true;
    } else if (arg == "--elements-m" && i + 1 < argc) {
      elements_m = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--no-matmul") {
      no_matmul = true;
    } else if (arg == "--check") {
      matmul_only = check_only = true;
    } else if (arg == "--tiles" && i + 1 < argc) {
      tiles = split(argv[++i], ';');
    } else if (arg == "--gemv" && i + 1 < argc) {
      gemv_splits = split(argv[++i], ';');
    } else {
      std::cerr << "usage: vulkan_bench [--matmul | --check | --no-matmul] [--quick] "
                   "[--tiles BM,BN,BK,TM,TN;...] [--gemv COLS,WG,UNROLL;...]\n";
      return 2;
    }
  }
  const char* dir = std::getenv("OPENINFER_TEST_PLUGIN_DIR");
  auto registry = oi::PluginRegistry::discover({dir != nullptr ? dir : PLUGIN_DIR});
  auto gpu = registry.backend("vulkan");
  std::cout << "device: " << gpu->device_name() << "\n";
  using oi::KernelMode;
  const auto* add =
      gpu->find_kernel("add", {{DType::f32, DType::f32}}, DType::f32, KernelMode::Normal);
  const auto* relu = gpu->find_kernel("relu", {{DType::f32}}, DType::f32, KernelMode::Normal);
  const auto* mm =
      gpu->find_kernel("matmul", {{DType::f32, DType::f32}}, DType::f32, KernelMode::Normal);
  if (add == nullptr || relu == nullptr || mm == nullptr) {
    std::cerr << "missing kernels\n";
    return 1;
  }

  if (!matmul_only) {
    const uint64_t n = elements_m << 20;
    const std::string mib = std::to_string(n * 4 >> 20) + " MiB",
                      m = std::to_string(elements_m) + "M";
    std::vector<float> host(n);
    for (uint64_t i = 0; i < n; ++i) host[i] = static_cast<float>(int(i % 1001) - 500) * 0.25f;
    auto a = gpu->alloc(n * 4), b = gpu->alloc(n * 4), y = gpu->alloc(n * 4);
    const auto bytes = std::as_bytes(std::span(host));
    const double up = median_seconds(3, [&] {
      gpu->upload(*a, 0, bytes);
      gpu->synchronize();
    });
    print("upload " + mib, up, n * 4 / 1e9, "GB/s");
    gpu->upload(*b, 0, bytes);
    const double down =
        median_seconds(3, [&] { gpu->download(*y, 0, std::as_writable_bytes(std::span(host))); });
    print("download " + mib, down, n * 4 / 1e9, "GB/s");

    const std::vector<uint64_t> dims{n};
    oi::TensorArg ins[] = {{DType::f32, dims, a.get(), 0}, {DType::f32, dims, b.get(), 0}};
    oi::TensorArg outs[] = {{DType::f32, dims, y.get(), 0}};
    // 20 back-to-back calls and one synchronize, as the PyTorch peer times 20 calls between two
    // CUDA events (bench/vulkan_gpu_peers.py): the figure is one call's GPU time.
    constexpr int kBackToBack = 20;
    print("add f32 " + m,
          median_seconds(10,
                         [&] {
                           for (int i = 0; i < kBackToBack; ++i) gpu->run(*add, ins, outs, {});
                           gpu->synchronize();
                         }) /
              kBackToBack,
          12.0 * n / 1e9, "GB/s");
    print("relu f32 " + m,
          median_seconds(10,
                         [&] {
                           for (int i = 0; i < kBackToBack; ++i)
                             gpu->run(*relu, {ins, 1}, outs, {});
                           gpu->synchronize();
                         }) /
              kBackToBack,
          8.0 * n / 1e9, "GB/s");

    const std::vector<uint64_t> small{256};
    oi::TensorArg sins[] = {{DType::f32, small, a.get(), 0}, {DType::f32, small, b.get(), 0}};
    oi::TensorArg souts[] = {{DType::f32, small, a.get(), 0}};
    const auto* add_inplace =
        gpu->find_kernel("add", {{DType::f32, DType::f32}}, DType::f32, KernelMode::InPlace);
    // Recorded every time (replay off), then replayed (docs/vulkan.md, "Replay"): each rep is
    // one unit of 1,000 dispatches ending in a synchronize.
    for (const char* replay : {"0", "1"}) {
      setenv("OPENINFER_VULKAN_REPLAY", replay, 1);
      const double chain = median_seconds(7, [&] {
        for (int i = 0; i < 1000; ++i) gpu->run(*add_inplace, sins, souts, {});
        gpu->synchronize();
      });
      std::cout << "chain of 1000 adds of 256 f32 (" << (*replay == '1' ? "replayed" : "recorded")
                << "): " << chain * 1e3 << " ms, " << chain * 1e3 << " us/call\n";
    }
    unsetenv("OPENINFER_VULKAN_REPLAY");
  }

  if (no_matmul) return 0;
  MatmulBench bench(gpu, *mm, check_only ? 1ull << 20 : 64ull << 20);
  const bool timed = !check_only;
  size_t bad = matmul_figures(bench, "default", timed, timed, quick);
  for (const auto& t : tiles) {
    setenv("OPENINFER_VULKAN_MATMUL_TILE", t.c_str(), 1);
    bad += matmul_figures(bench, "tile " + t, timed, timed, quick);
  }
  unsetenv("OPENINFER_VULKAN_MATMUL_TILE");
  for (const auto& g : gemv_splits) {
    setenv("OPENINFER_VULKAN_MATMUL_GEMV", g.c_str(), 1);
    bad += matmul_figures(bench, "gemv " + g, false, timed, quick);
  }
  return bad == 0 ? 0 : 1;
}
