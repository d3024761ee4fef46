// Memory kinds (dsl.md "Memory"): dynamic, volatile, constant, persistent and temporaries,
// over several steps.
#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;

namespace {

oi::ModelWriter seed_model() {
  oi::ModelWriter w;
  w.add_sizevar("B", 3);
  w.add_tensor("a", Tensor::from<float>({1, 2, 3}));
  w.add_metadata("scale", oi::MetaValue::scalar(Tensor::scalar(2.0f)));
  return w;
}

const char* kSeedGraph = R"(
dynamic { x: f32[B]; }
volatile {
  a: f32[B];
  y: f32[B] @init(5.0);
}
block entry {
  assign t0: f32[B];
  op add(x, a) >> t0;
  op mul(y, t0) >> y;
  return y;
}
)";

}  // namespace

BOOST_AUTO_TEST_SUITE(memory)

// The seeds' minimal example: y = 5 * (x + a), volatile y starting from @init every step.
BOOST_AUTO_TEST_CASE(volatile_is_reloaded_every_step) {
  auto sim = simulate(seed_model(), kSeedGraph);
  auto exec = sim.make_executor();
  exec.insert({{"x", Tensor::from<float>({10, 20, 30})}});
  exec.step();
  BOOST_TEST(values<float>(exec, "y") == std::vector<float>({55, 110, 165}),
             boost::test_tools::per_element());
  BOOST_TEST(exec.outputs() == std::vector<std::string>({"y"}), boost::test_tools::per_element());
  exec.insert("x", Tensor::from<float>({1, 1, 1}));
  exec.step();
  // (1+1)*5, (1+2)*5, (1+3)*5: y did not keep the first step's value.
  BOOST_TEST(values<float>(exec, "y") == std::vector<float>({10, 15, 20}),
             boost::test_tools::per_element());
  BOOST_TEST(exec.step_count() == 2u);
}

BOOST_AUTO_TEST_CASE(persistent_state_accumulates_and_wraps) {
  auto sim = simulate(seed_model(), R"(
dynamic { x: f32[B]; }
persistent {
  count: i32 @init(0);
  small: u8 @init(1);
  total: f32[B];
}
block entry {
  op add(total, x) >> total;
  cache.increment count;
  cache.decrement 2 small;
  return;
}
)");
  auto exec = sim.make_executor();
  std::vector<std::vector<float>> inputs = {{1, 2, 3}, {1, 1, 1}, {0, 0, 5}};
  for (const auto& in : inputs) {
    exec.insert("x", Tensor::from<float>(in));
    exec.step();
  }
  BOOST_TEST(values<float>(exec, "total") == std::vector<float>({2, 3, 9}),
             boost::test_tools::per_element());
  BOOST_TEST(values<int32_t>(exec, "count")[0] == 3);
  // 1 - 2 - 2 - 2 = -5, which wraps to 256 - 5 = 251 in u8.
  BOOST_TEST(values<uint8_t>(exec, "small")[0] == 251);
}

BOOST_AUTO_TEST_CASE(constant_links_to_metadata_and_at_ref) {
  auto sim = simulate(seed_model(), R"(
dynamic { x: f32[B]; }
constant {
  scale: f32;
  weights: f32[B] @ref("a");
}
volatile { y: f32[B]; }
block entry {
  op mul(x, scale) >> y;
  op add(y, weights) >> y;
  return y;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, -2, 0.5f}));
  exec.step();
  // x * 2 + a
  BOOST_TEST(values<float>(exec, "y") == std::vector<float>({3, -2, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(exec, "scale")[0] == 2.0f);
}

BOOST_AUTO_TEST_CASE(dynamic_needs_an_insert_every_step) {
  auto sim = simulate(seed_model(), kSeedGraph);
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 2, 3}));
  exec.step();
  // Between steps a fetch sees what the step left.
  BOOST_TEST(values<float>(exec, "x") == std::vector<float>({1, 2, 3}),
             boost::test_tools::per_element());
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "dynamic variable 'x' was not inserted for this step"));
  BOOST_TEST(contains(msg, "test.oi:9:"));
  // The failed step left no half-open state: a fresh insert runs again.
  exec.insert("x", Tensor::from<float>({0, 0, 0}));
  exec.step();
  BOOST_TEST(values<float>(exec, "y") == std::vector<float>({5, 10, 15}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(temporaries_start_from_zero_every_step) {
  auto sim = simulate(seed_model(), R"(
dynamic { x: f32[B]; }
block entry {
  assign t: f32[B];
  op add(t, x) >> t;
  op add(t, x) >> t;
  return t;
}
)");
  auto exec = sim.make_executor();
  for (int i = 0; i < 2; ++i) {
    exec.insert("x", Tensor::from<float>({1, 2, 3}));
    exec.step();
    BOOST_TEST(values<float>(exec, "t") == std::vector<float>({2, 4, 6}),
               boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(blocks_may_write_dynamic_inputs_in_place) {
  auto sim = simulate(seed_model(), R"(
dynamic { q: f32[B]; }
constant { zero: f32[B] @init(0.5); }
block entry {
  op add(q, zero) >> q;
  return q;
}
)");
  auto exec = sim.make_executor();
  exec.insert("q", Tensor::from<float>({1, 2, 3}));
  exec.step();
  BOOST_TEST(values<float>(exec, "q") == std::vector<float>({1.5f, 2.5f, 3.5f}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
