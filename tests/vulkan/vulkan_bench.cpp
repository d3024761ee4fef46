// Speed of the Vulkan backend through the plugin host (bench/README.md, "Vulkan backend"):
// f32 add and relu over 64M elements, f32 matmul 4096^3, upload/download bandwidth, and the
// per-call cost of a 1,000-call chain of tiny adds. Each figure is the median of timed
// repetitions after a warm-up, by wall clock around calls that submit and wait.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
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

void print(const char* what, double seconds, double amount, const char* unit) {
  std::cout << what << ": " << seconds * 1e3 << " ms, " << amount / seconds << " " << unit << "\n";
}

}  // namespace

int main() {
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

  const uint64_t n = 64ull << 20;
  std::vector<float> host(n);
  for (uint64_t i = 0; i < n; ++i) host[i] = static_cast<float>(int(i % 1001) - 500) * 0.25f;
  auto a = gpu->alloc(n * 4), b = gpu->alloc(n * 4), y = gpu->alloc(n * 4);
  const auto bytes = std::as_bytes(std::span(host));
  const double up = median_seconds(3, [&] { gpu->upload(*a, 0, bytes); });
  print("upload 256 MiB", up, n * 4 / 1e9, "GB/s");
  gpu->upload(*b, 0, bytes);
  const double down =
      median_seconds(3, [&] { gpu->download(*y, 0, std::as_writable_bytes(std::span(host))); });
  print("download 256 MiB", down, n * 4 / 1e9, "GB/s");

  const std::vector<uint64_t> dims{n};
  oi::TensorArg ins[] = {{DType::f32, dims, a.get(), 0}, {DType::f32, dims, b.get(), 0}};
  oi::TensorArg outs[] = {{DType::f32, dims, y.get(), 0}};
  print("add f32 64M", median_seconds(10, [&] { gpu->run(*add, ins, outs, {}); }), 12.0 * n / 1e9,
        "GB/s");
  print("relu f32 64M",
        median_seconds(10,
                       [&] {
                         gpu->run(*relu, {ins, 1}, outs, {});
                       }),
        8.0 * n / 1e9, "GB/s");

  const uint64_t m = 4096;
  const std::vector<uint64_t> md{m, m};
  oi::TensorArg mins[] = {{DType::f32, md, a.get(), 0}, {DType::f32, md, b.get(), 0}};
  oi::TensorArg mouts[] = {{DType::f32, md, y.get(), 0}};
  print("matmul f32 4096^3", median_seconds(5, [&] { gpu->run(*mm, mins, mouts, {}); }),
        2.0 * m * m * m / 1e12, "TFLOP/s");

  const std::vector<uint64_t> small{256};
  oi::TensorArg sins[] = {{DType::f32, small, a.get(), 0}, {DType::f32, small, b.get(), 0}};
  oi::TensorArg souts[] = {{DType::f32, small, a.get(), 0}};
  const auto* add_inplace =
      gpu->find_kernel("add", {{DType::f32, DType::f32}}, DType::f32, KernelMode::InPlace);
  const double chain = median_seconds(5, [&] {
    for (int i = 0; i < 1000; ++i) gpu->run(*add_inplace, sins, souts, {});
  });
  std::cout << "chain of 1000 adds of 256 f32: " << chain * 1e3 << " ms, " << chain * 1e3
            << " us/call\n";
  return 0;
}
