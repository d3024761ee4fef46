// Large f32/f64 matmuls (the sizes that take the CPU plugin's OpenBLAS path, blas_matmul.hpp, when
// it is built in) against a naive double-precision reference, within ops.md's matmul tolerance:
// batch broadcasting, tiles split across threads, and in-place mode.
#define BOOST_TEST_MODULE plugins_blas_matmul
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "openinfer/plugin_host.hpp"
#include "plugin_test_support.hpp"

using oi::DType;

namespace {

struct Fixture {
  oi::PluginRegistry registry = oi::PluginRegistry::discover({plugin_test::cpu_plugin_dir()});
  std::shared_ptr<oi::Backend> cpu = registry.backend("cpu");
};

template <class T>
constexpr DType dtype_of() {
  return sizeof(T) == 4 ? DType::f32 : DType::f64;
}

// Values in [0.25, 1.25): positive, so the reference sum has no cancellation that would make
// summation order matter beyond the tolerance.
template <class T>
std::vector<T> random_values(uint64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(0.25, 1.25);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(gen));
  return v;
}

// out[batch] = a[batch % a_batches] x b[batch % b_batches], in double.
template <class T>
std::vector<double> reference(const std::vector<T>& a, const std::vector<T>& b, uint64_t batches,
                              uint64_t a_batches, uint64_t b_batches, uint64_t M, uint64_t K,
                              uint64_t N) {
  std::vector<double> out(batches * M * N, 0.0);
  for (uint64_t t = 0; t < batches; ++t) {
    const T* pa = a.data() + (t % a_batches) * M * K;
    const T* pb = b.data() + (t % b_batches) * K * N;
    for (uint64_t i = 0; i < M; ++i) {
      for (uint64_t j = 0; j < N; ++j) {
        double s = 0;
        for (uint64_t k = 0; k < K; ++k) s += double(pa[i * K + k]) * double(pb[k * N + j]);
        out[(t * M + i) * N + j] = s;
      }
    }
  }
  return out;
}

template <class T>
void check_close(const std::vector<T>& got, const std::vector<double>& want) {
  const double atol = sizeof(T) == 4 ? 1e-6 : 1e-12, rtol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  uint64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    // The f32 rule compares against the f32-accumulated result; the double reference differs
    // from that by at most K rounding errors, well inside rtol for these values.
    wrong += !(std::abs(double(got[i]) - want[i]) <= atol + rtol * std::abs(want[i]));
  }
  BOOST_TEST(wrong == 0u);
}

// [a_batches, M, K] x [K, N] broadcast to [a_batches, M, N] (a_batches == 0: rank 2).
template <class T>
void check_normal(oi::Backend& cpu, uint64_t a_batches, uint64_t M, uint64_t K, uint64_t N) {
  const DType t = dtype_of<T>();
  const uint64_t batches = a_batches ? a_batches : 1;
  std::vector<T> a = random_values<T>(batches * M * K, 1), b = random_values<T>(K * N, 2);
  std::vector<uint64_t> adims{M, K}, bdims{K, N}, odims{M, N};
  if (a_batches) {
    adims.insert(adims.begin(), a_batches);
    odims.insert(odims.begin(), a_batches);
  }
  auto ba = cpu.alloc(a.size() * sizeof(T)), bb = cpu.alloc(b.size() * sizeof(T));
  auto bo = cpu.alloc(batches * M * N * sizeof(T));
  cpu.upload(*ba, 0, std::as_bytes(std::span(a)));
  cpu.upload(*bb, 0, std::as_bytes(std::span(b)));
  oi::TensorArg ins[] = {{t, adims, ba.get(), 0}, {t, bdims, bb.get(), 0}};
  oi::TensorArg outs[] = {{t, odims, bo.get(), 0}};
  cpu.run(*cpu.find_kernel("matmul", std::vector{t, t}, t, oi::KernelMode::Normal), ins, outs, {});
  std::vector<T> got(batches * M * N);
  cpu.download(*bo, 0, std::as_writable_bytes(std::span(got)));
  check_close(got, reference(a, b, batches, batches, 1, M, K, N));
}

// In place: [2, M, K] x [K, K] written over the first operand.
template <class T>
void check_in_place(oi::Backend& cpu, uint64_t M, uint64_t K) {
  const DType t = dtype_of<T>();
  std::vector<T> a = random_values<T>(2 * M * K, 3), b = random_values<T>(K * K, 4);
  std::vector<uint64_t> adims{2, M, K}, bdims{K, K};
  auto ba = cpu.alloc(a.size() * sizeof(T)), bb = cpu.alloc(b.size() * sizeof(T));
  cpu.upload(*ba, 0, std::as_bytes(std::span(a)));
  cpu.upload(*bb, 0, std::as_bytes(std::span(b)));
  oi::TensorArg ins[] = {{t, adims, ba.get(), 0}, {t, bdims, bb.get(), 0}};
  oi::TensorArg outs[] = {{t, adims, ba.get(), 0}};
  cpu.run(*cpu.find_kernel("matmul", std::vector{t, t}, t, oi::KernelMode::InPlace), ins, outs, {});
  std::vector<T> got(a.size());
  cpu.download(*ba, 0, std::as_writable_bytes(std::span(got)));
  check_close(got, reference(a, b, 2, 2, 1, M, K, K));
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(f32_matmul_matches_double_reference, Fixture) {
  BOOST_REQUIRE(cpu);
  check_normal<float>(*cpu, 0, 67, 129, 33);
  check_normal<float>(*cpu, 3, 67, 129, 33);
  check_normal<float>(*cpu, 0, 300, 70, 260);  // split into row and column tiles
  check_in_place<float>(*cpu, 67, 96);
}

BOOST_FIXTURE_TEST_CASE(f64_matmul_matches_double_reference, Fixture) {
  BOOST_REQUIRE(cpu);
  check_normal<double>(*cpu, 0, 67, 129, 33);
  check_normal<double>(*cpu, 3, 67, 129, 33);
  check_normal<double>(*cpu, 0, 300, 70, 260);
  check_in_place<double>(*cpu, 67, 96);
}
