// Branches, loops, cache operations, transfer, barrier and dep.
#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(control_flow)

BOOST_AUTO_TEST_CASE(branch_on_is_finite) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { x: f32[3]; }
volatile { y: f32[3]; }
persistent {
  good: i32 @init(0);
  steps: i32 @init(0);
}
constant { two: f32 @init(2.0); }
block entry {
  assign ok: bool[];
  op is_finite(x) >> ok;
  branch ok finite nonfinite;
  branch tally;
  return y;
}
block finite {
  op mul(x, two) >> y;
  cache.increment good;
  return;
}
block nonfinite {
  op fill(y, value=-1.0) >> y;
  return;
}
block tally {
  cache.increment steps;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 2, 3}));
  exec.step();
  BOOST_TEST(values<float>(exec, "y") == std::vector<float>({2, 4, 6}), tt::per_element());
  float inf = std::numeric_limits<float>::infinity();
  exec.insert("x", Tensor::from<float>({1, inf, 3}));
  exec.step();
  BOOST_TEST(values<float>(exec, "y") == std::vector<float>({-1, -1, -1}), tt::per_element());
  BOOST_TEST(values<int32_t>(exec, "good")[0] == 1);
  BOOST_TEST(values<int32_t>(exec, "steps")[0] == 2);
  // Branched-to blocks report their own name; execution came back to entry's return.
  auto events = exec.events();
  BOOST_TEST(events.back().block == "entry");
  BOOST_TEST((events.back().kind == oi::NodeKind::Return));
  bool saw_nonfinite = false;
  for (const auto& ev : events) saw_nonfinite = saw_nonfinite || ev.block == "nonfinite";
  BOOST_TEST(saw_nonfinite);
}

BOOST_AUTO_TEST_CASE(loop_index_as_setting_and_empty_loops) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
volatile {
  v: f32[2];
  staged: f32[2];
}
persistent {
  total: f32[2];
  snap: f32[2];
  counter: i64 @init(40);
}
block entry {
  loop fills (i in 0..3) {
    op fill(v, value=i) >> v;
    op add(total, v) >> total;
  }
  loop never (j in 3..1) {
    cache.reset total;
  }
  barrier;
  transfer total >> staged;
  dep after(transfer) before(cache.write);
  cache.write staged >> snap;
  cache.increment 5 counter;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.step();
  exec.step();
  // 0 + 1 + 2 per step, twice; the empty loop never reset it.
  BOOST_TEST(values<float>(exec, "total") == std::vector<float>({6, 6}), tt::per_element());
  BOOST_TEST(values<float>(exec, "snap") == std::vector<float>({6, 6}), tt::per_element());
  BOOST_TEST(values<int64_t>(exec, "counter")[0] == 50);
}

BOOST_AUTO_TEST_CASE(a_loop_index_setting_that_changes_the_result_shape_stops_the_step) {
  // argmax over axis i of a [2, 3] input: axis 1 gives [2] (the output's shape), axis 0 gives
  // [3], which the output cannot hold: the step stops naming both shapes (it used to store the
  // [3] result into the [2] output silently).
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { x: f32[2, 3]; }
persistent { a: i32 @init(1); b: i32 @init(2); }
volatile { y: i64[2]; }
block entry {
  loop axes (i in a..b) {
    op argmax_axis(x, axis=i) >> y;
  }
  cache.decrement a;
  return y;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 5, 2, 7, 0, 3}, {2, 3}));
  exec.step();  // axis 1 only: the largest of each row at 1 and 0
  BOOST_TEST(values<int64_t>(exec, "y") == std::vector<int64_t>({1, 0}), tt::per_element());
  exec.insert("x", Tensor::from<float>({1, 5, 2, 7, 0, 3}, {2, 3}));
  const std::string msg = error_of([&] { exec.step(); });  // axis 0 first
  BOOST_TEST(contains(msg, "op 'argmax_axis' produces shape [3] but output 'y' has shape [2]"),
             msg);
}

BOOST_AUTO_TEST_CASE(cache_reset_and_transfer) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { x: f32[2]; }
persistent {
  counter: i32 @init(7);
  K(t): f32[2] @table;
}
volatile { copy: f32[2]; }
block entry {
  cache.increment counter;
  cache.write x >> K[counter];
  transfer x >> copy;
  branch maybe_reset;
  return;
}
block maybe_reset {
  cache.reset counter;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 2}));
  exec.step();
  // counter: 7 -> 8 -> reset to its @init 7; K has entries 0..8, only 8 written.
  BOOST_TEST(values<int32_t>(exec, "counter")[0] == 7);
  Tensor k = exec.fetch("K");
  BOOST_TEST(k.shape() == oi::Shape({9, 2}), tt::per_element());
  BOOST_TEST(k.as<float>()[16] == 1.0f);
  BOOST_TEST(k.as<float>()[0] == 0.0f);
  BOOST_TEST(values<float>(exec, "copy") == std::vector<float>({1, 2}), tt::per_element());
}

// acc= runs the accumulate kernel into the wider output; `>> a` of an input runs in place.
BOOST_AUTO_TEST_CASE(accumulate_and_in_place_modes) {
  oi::ModelWriter w;
  w.add_tensor("a", Tensor::from<int8_t>({100, 100, -128}));
  auto sim = simulate(w, R"(
dynamic { b: i8[3]; }
constant { a: i8[3]; }
volatile {
  wide: i32[3];
  narrow: i8[3];
}
block entry {
  op add(a, b, acc=i32) >> wide;
  op add(a, b) >> narrow;
  op add(narrow, b) >> narrow;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("b", Tensor::from<int8_t>({100, 27, -1}));
  exec.step();
  BOOST_TEST(values<int32_t>(exec, "wide") == std::vector<int32_t>({200, 127, -129}),
             tt::per_element());
  // a + b wraps in i8: [200-256, 127, -129+256] = [-56, 127, 127];
  // + b again: [-56+100, 154-256, 127-1] = [44, -102, 126].
  BOOST_TEST(values<int8_t>(exec, "narrow") == std::vector<int8_t>({44, -102, 126}),
             tt::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
