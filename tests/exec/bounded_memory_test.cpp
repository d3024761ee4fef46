// The table budget (SimulatorOptions::max_table_bytes) and failed steps that leave persistent
// memory as it was before them (docs/runtime.md "Table budget", "Failed steps").
#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

namespace {

oi::Simulator simulate_with_budget(const std::string& graph, uint64_t max_table_bytes) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  oi::SimulatorOptions options;
  options.max_table_bytes = max_table_bytes;
  return oi::Simulator(model(w), parse_graph(w, graph), cpu(), options);
}

// Every step appends x at H[n] and counts it; `wipe` resets both first.
const char* kAppendGraph = R"(
dynamic { x: f32[D]; wipe: bool; }
persistent {
  n: i32 @init(0);
  H(t): f32[D] @table;
}
block entry {
  branch wipe clear keep;
  cache.write x >> H[n];
  cache.increment n;
  return n;
}
block clear {
  cache.reset H;
  cache.reset n;
  return;
}
block keep { return; }
)";

void step(oi::Executor& exec, float value, bool wipe = false) {
  exec.insert("x", Tensor::from<float>({value, -value}));
  exec.insert("wipe", Tensor::scalar<bool>(wipe));
  exec.step();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bounded_memory)

// f32[2] entries are 8 bytes: a 24-byte budget holds three.
BOOST_AUTO_TEST_CASE(budget_refuses_the_growth_that_passes_it) {
  auto sim = simulate_with_budget(kAppendGraph, 24);
  auto exec = sim.make_executor();
  for (int i = 1; i <= 3; ++i) step(exec, static_cast<float>(i));
  BOOST_TEST(exec.table_bytes() == 24u);
  std::string msg = error_of([&] { step(exec, 4); });
  BOOST_TEST(contains(msg, "table 'H'"));
  BOOST_TEST(contains(msg, "from 24 to 32 bytes"));
  BOOST_TEST(contains(msg, "limit of 24 bytes"));
  // The refused step changed nothing: the counter and the table are those of step 3.
  BOOST_TEST(exec.step_count() == 3u);
  BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({3}), tt::per_element());
  BOOST_TEST(values<float>(exec, "H") == std::vector<float>({1, -1, 2, -2, 3, -3}),
             tt::per_element());
  BOOST_TEST(exec.table_bytes() == 24u);
  // The error repeats cleanly; a reset makes room and the stream goes on.
  BOOST_TEST(contains(error_of([&] { step(exec, 4); }), "table 'H'"));
  step(exec, 5, true);
  step(exec, 6);
  BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({2}), tt::per_element());
  BOOST_TEST(values<float>(exec, "H") == std::vector<float>({5, -5, 6, -6}), tt::per_element());
  BOOST_TEST(exec.table_bytes() == 16u);
}

BOOST_AUTO_TEST_CASE(no_budget_means_no_limit) {
  auto sim = simulate_with_budget(kAppendGraph, 0);
  auto exec = sim.make_executor();
  for (int i = 0; i < 100; ++i) step(exec, static_cast<float>(i));
  BOOST_TEST(exec.table_bytes() == 800u);
}

// An auto_dim vector grows by one element a step: f32[D + n] holds 8 + 4 n bytes.
BOOST_AUTO_TEST_CASE(budget_covers_auto_dim_growth) {
  auto sim = simulate_with_budget(R"(
dynamic { x: f32[D]; }
persistent {
  n: i32 @init(0);
  M(i): f32[D] @auto_dim(i) @fixed(i=8);
}
volatile { padded: f32[10]; }
block entry {
  cache.read M[n] >> padded;
  cache.write x >> M[n..];
  cache.increment n;
  return;
}
)",
                                  16);
  auto exec = sim.make_executor();
  // M: [1, 10]; grown to 3 and written at 1..3: [1, 2, 20]; then [1, 2, 3, 30].
  for (float r = 1; r <= 3; ++r) {
    exec.insert("x", Tensor::from<float>({r, 10 * r}));
    exec.step();
  }
  BOOST_TEST(exec.table_bytes() == 16u);
  exec.insert("x", Tensor::from<float>({4, 40}));
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "table 'M' cannot grow from 16 to 20 bytes"));
  BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({3}), tt::per_element());
  BOOST_TEST(values<float>(exec, "M") == std::vector<float>({1, 2, 3, 30}), tt::per_element());
}

// A step that fails after writing a plain persistent value, a growable table, a @fixed table
// and a counter leaves all four as they were; the next steps run on from there.
BOOST_AUTO_TEST_CASE(failed_step_restores_every_persistent_write) {
  auto sim = simulate_with_budget(R"(
dynamic { x: f32[D]; wipe: bool; }
persistent {
  n: i32 @init(0);
  acc: f32[D] @init(0.0);
  H(t): f32[D] @table;
  F(t): f32[D] @table @fixed(t=3) @init(9.0);
}
block entry {
  branch wipe clear keep;
  op add(acc, x) >> acc;
  cache.write x >> H[n];
  cache.write acc >> F[n];
  cache.write x >> F[0];
  cache.increment n;
  cache.write x >> F[n];
  return acc;
}
block clear {
  cache.reset H;
  cache.reset F;
  cache.reset n;
  return;
}
block keep { return; }
)",
                                  0);
  auto exec = sim.make_executor();
  step(exec, 1);  // acc 1; H[0] = 1; F[0] = 1, F[1] = 1; n = 1
  step(exec, 2);  // acc 3; H[1] = 2; F[1] = 3, F[0] = 2, F[2] = 2; n = 2
  // n = 2 writes everything, then F[3] passes the @fixed bound.
  std::string msg = error_of([&] { step(exec, 4); });
  BOOST_TEST(contains(msg, "@fixed bound t=3"));
  BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({2}), tt::per_element());
  BOOST_TEST(values<float>(exec, "acc") == std::vector<float>({3, -3}), tt::per_element());
  BOOST_TEST(values<float>(exec, "H") == std::vector<float>({1, -1, 2, -2}), tt::per_element());
  BOOST_TEST(values<float>(exec, "F") == std::vector<float>({2, -2, 3, -3, 2, -2}),
             tt::per_element());
  BOOST_TEST(exec.table_bytes() == 16u + 24u);
  // cache.reset, then the stream goes on from the restored values.
  step(exec, 5, true);  // acc 8; H[0] = 5; F[0] = 5, F[1] = 5, rest @init 9; n = 1
  BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({1}), tt::per_element());
  BOOST_TEST(values<float>(exec, "acc") == std::vector<float>({8, -8}), tt::per_element());
  BOOST_TEST(values<float>(exec, "H") == std::vector<float>({5, -5}), tt::per_element());
  BOOST_TEST(values<float>(exec, "F") == std::vector<float>({5, -5, 5, -5, 9, 9}),
             tt::per_element());
}

// A cache.reset inside the failed step is undone too: the erased entries come back.
BOOST_AUTO_TEST_CASE(failed_step_undoes_a_reset) {
  auto sim = simulate_with_budget(R"(
dynamic { x: f32[D]; wipe: bool; }
persistent {
  n: i32 @init(0);
  H(t): f32[D] @table;
  F(t): f32[D] @table @fixed(t=2);
}
block entry {
  branch wipe clear keep;
  cache.write x >> H[n];
  cache.write x >> F[n];
  cache.increment n;
  return n;
}
block clear {
  cache.reset H;
  return;
}
block keep { return; }
)",
                                  0);
  auto exec = sim.make_executor();
  step(exec, 1);
  step(exec, 2);
  // Clears H, writes H[2], then F[2] passes the @fixed bound.
  BOOST_TEST(contains(error_of([&] { step(exec, 3, true); }), "@fixed bound t=2"));
  BOOST_TEST(values<float>(exec, "H") == std::vector<float>({1, -1, 2, -2}), tt::per_element());
  BOOST_TEST(values<float>(exec, "F") == std::vector<float>({1, -1, 2, -2}), tt::per_element());
  BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({2}), tt::per_element());
  BOOST_TEST(exec.table_bytes() == 32u);
}

BOOST_AUTO_TEST_SUITE_END()
