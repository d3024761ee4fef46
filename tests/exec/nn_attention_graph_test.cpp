// attention and rope through the simulator on the real CPU plugin: a decode loop that rotates
// each step's q and k by the step counter (rope), appends k and v to persistent K/V tables, and
// attends over a fixed window of the cache with causal=true plus an iota <= step mask
// (ops-nn.md: the way to use a fixed window of a growing cache). Checked against formulas
// evaluated here in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;

namespace {

constexpr int kD = 4, kWindow = 4;

const char* kGraph = R"(
dynamic {
  q: f32[1, D];
  k: f32[1, D];
  v: f32[1, D];
}
persistent {
  step: i32 @init(0);
  K(t): f32[D] @table @fixed(t=W);
  V(t): f32[D] @table @fixed(t=W);
}
volatile {
  keys: f32[W, D];
  vals: f32[W, D];
  idx: i32[W];
  at: i32[W];
  seen: bool[W];
  y: f32[1, D];
}
block entry {
  assign qr: f32[1, D];
  assign kr: f32[1, D];
  op rope(q, step) >> qr;
  op rope(k, step) >> kr;
  assign kflat: f32[D];
  assign vflat: f32[D];
  op reshape(kr) >> kflat;
  op reshape(v) >> vflat;
  cache.write kflat >> K[step];
  cache.write vflat >> V[step];
  cache.read K[0..W] >> keys;
  cache.read V[0..W] >> vals;
  op iota(idx, axis=0) >> at;
  op le(at, step) >> seen;
  op attention(qr, keys, vals, seen, causal=true) >> y;
  cache.increment step;
  return y;
}
)";

oi::ModelWriter model_with_sizes() {
  oi::ModelWriter w;
  w.add_sizevar("D", kD);
  w.add_sizevar("W", kWindow);
  return w;
}

// rope of one row at position p (interleaved=false: pairs (x[i], x[i + D/2])).
std::vector<double> rope(const std::vector<float>& x, int p) {
  std::vector<double> y(x.begin(), x.end());
  for (int i = 0; i < kD / 2; ++i) {
    const double angle = p * std::pow(10000.0, -2.0 * i / kD);
    const double a = x[i], b = x[i + kD / 2];
    y[i] = a * std::cos(angle) - b * std::sin(angle);
    y[i + kD / 2] = a * std::sin(angle) + b * std::cos(angle);
  }
  return y;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nn_attention_graph)

BOOST_AUTO_TEST_CASE(decode_steps_attend_over_the_cached_keys) {
  auto sim = simulate(model_with_sizes(), kGraph);
  auto exec = sim.make_executor();
  std::vector<std::vector<double>> keys, vals;
  for (int s = 0; s < kWindow; ++s) {
    std::vector<float> q(kD), k(kD), v(kD);
    for (int i = 0; i < kD; ++i) {
      q[i] = 0.25f * static_cast<float>((s * 7 + i * 3) % 11) - 1.0f;
      k[i] = 0.5f * static_cast<float>((s * 5 + i * 2) % 7) - 1.5f;
      v[i] = static_cast<float>(s * kD + i) - 4.0f;
    }
    exec.insert({{"q", Tensor::from<float>(q, {1, kD})},
                 {"k", Tensor::from<float>(k, {1, kD})},
                 {"v", Tensor::from<float>(v, {1, kD})}});
    exec.step();

    keys.push_back(rope(k, s));
    vals.emplace_back(v.begin(), v.end());
    const std::vector<double> qr = rope(q, s);
    std::vector<double> score(keys.size());
    double mx = -INFINITY;
    for (size_t j = 0; j < keys.size(); ++j) {
      double dot = 0;
      for (int i = 0; i < kD; ++i) dot += qr[i] * keys[j][i];
      score[j] = dot / std::sqrt(static_cast<double>(kD));
      mx = std::max(mx, score[j]);
    }
    double sum = 0;
    for (double& x : score) sum += (x = std::exp(x - mx));
    const std::vector<float> y = values<float>(exec, "y");
    BOOST_TEST_REQUIRE(y.size() == static_cast<size_t>(kD));
    for (int i = 0; i < kD; ++i) {
      double want = 0;
      for (size_t j = 0; j < keys.size(); ++j) want += score[j] / sum * vals[j][i];
      BOOST_TEST(std::abs(y[i] - want) <= 1e-5 * std::max(1.0, std::abs(want)),
                 "step " << s << " element " << i << ": got " << y[i] << ", want " << want);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
