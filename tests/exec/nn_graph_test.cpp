// The newer nn ops (ops-nn.md) through the simulator on the real CPU plugin: softmax,
// transpose, gather and rms_norm in one graph, checked against formulas evaluated here in
// double, plus a gather index out of range failing the step.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;

namespace {

const char* kGraph = R"(
dynamic {
  x: f32[2, 3];
  idx: i32[2];
}
constant { scale: f32[3] @ref("scale"); }
volatile {
  y: f32[2, 3];
  t: f32[3, 2];
  g: f32[2, 3];
  r: f32[2, 3];
}
block entry {
  op softmax(x, axis=-1) >> y;
  op transpose(y, perm=[1, 0]) >> t;
  op gather(x, idx, axis=0) >> g;
  op rms_norm(x, scale) >> r;
  return y, t, g, r;
}
)";

oi::ModelWriter nn_model() {
  oi::ModelWriter w;
  w.add_tensor("scale", Tensor::from<float>({0.5f, 1.0f, 2.0f}));
  return w;
}

void check_close(const std::vector<float>& got, const std::vector<double>& want) {
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double tol = 1e-5 * std::max(1.0, std::abs(want[i]));
    BOOST_TEST(std::abs(static_cast<double>(got[i]) - want[i]) <= tol,
               "element " << i << ": got " << got[i] << ", want " << want[i]);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nn_graph)

BOOST_AUTO_TEST_CASE(softmax_transpose_gather_rms_norm) {
  const std::vector<float> xs = {1.0f, 2.0f, 3.0f, -1.0f, 0.5f, 4.0f};
  const std::vector<double> sc = {0.5, 1.0, 2.0};
  const std::vector<int32_t> ids = {1, -2};  // -2 counts from the end: row 0

  auto sim = simulate(nn_model(), kGraph);
  auto exec = sim.make_executor();
  exec.insert({{"x", Tensor::from<float>(xs, {2, 3})}, {"idx", Tensor::from<int32_t>(ids)}});
  exec.step();

  std::vector<double> soft(6), trans(6), gath(6), rms(6);
  for (int i = 0; i < 2; ++i) {
    double mx = xs[i * 3];
    for (int j = 1; j < 3; ++j) mx = std::max(mx, static_cast<double>(xs[i * 3 + j]));
    double sum = 0, sq = 0;
    for (int j = 0; j < 3; ++j) {
      sum += std::exp(xs[i * 3 + j] - mx);
      sq += static_cast<double>(xs[i * 3 + j]) * xs[i * 3 + j];
    }
    double inv = 1.0 / std::sqrt(sq / 3 + 1e-6);
    for (int j = 0; j < 3; ++j) {
      soft[i * 3 + j] = std::exp(xs[i * 3 + j] - mx) / sum;
      trans[j * 2 + i] = soft[i * 3 + j];
      rms[i * 3 + j] = xs[i * 3 + j] * inv * sc[j];
    }
    int row = ids[i] < 0 ? ids[i] + 2 : ids[i];
    for (int j = 0; j < 3; ++j) gath[i * 3 + j] = xs[row * 3 + j];
  }

  check_close(values<float>(exec, "y"), soft);
  check_close(values<float>(exec, "t"), trans);
  check_close(values<float>(exec, "g"), gath);
  check_close(values<float>(exec, "r"), rms);
  BOOST_TEST(exec.fetch<float>("t").shape == std::vector<uint64_t>({3, 2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(gather_index_out_of_range_fails_the_step) {
  auto sim = simulate(nn_model(), kGraph);
  auto exec = sim.make_executor();
  exec.insert({{"x", Tensor::from<float>({1, 2, 3, 4, 5, 6}, {2, 3})},
               {"idx", Tensor::from<int32_t>({0, 2})}});
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "gather"));
  BOOST_TEST(contains(msg, "index 2"));
  BOOST_TEST(contains(msg, "of size 2"));
}

BOOST_AUTO_TEST_SUITE_END()
