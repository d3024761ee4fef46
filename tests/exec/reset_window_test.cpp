// cache.reset of a window of table entries (dsl.md "Blocks and nodes"): exactly the entries the
// same access reads are emptied, the sizes stay; a window past a @fixed bound or a negative
// index fails the step as a read does, and the failed step changes nothing. The expected
// values are worked out by hand from dsl.md in the comments.
#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(reset_window)

BOOST_AUTO_TEST_CASE(a_window_resets_exactly_the_entries_it_reads) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  auto sim = simulate(w, R"(
dynamic { x: f32[D]; }
persistent {
  n: i32 @init(0);
  K(l, t): f32[D] @table @init(-1.0);
  F(t): f32[D] @table @fixed(t=4);
}
volatile {
  all: f32[3, 4, D];
  f: f32[4, D];
}
block entry {
  assign v: f32[D];
  transfer x >> v;
  loop fill (t in 0..4) {
    loop rows (l in 0..3) { cache.write v >> K[l, t]; }
    cache.write v >> F[t];
    op add(v, v) >> v;
  }
  cache.reset K[0, n+1..3];
  cache.reset K[1, ..-1];
  cache.reset K[1, 0..0];
  cache.reset K[2, 2..9];
  cache.reset K[, 3];
  cache.reset F[2..];
  cache.read K[] >> all;
  cache.read F[] >> f;
  cache.increment n;
  return all, f;
}
)");
  auto exec = sim.make_executor();
  // Step 1, n = 0. Before the resets every K[l, t] and F[t] is x * 2^t: [1,2] [2,4] [4,8] [8,16].
  exec.insert("x", Tensor::from<float>({1, 2}));
  exec.step();
  // K[0, 1..3] empties t = 1, 2; K[1, ..-1] is t = 0..3 (the size 4 less one); K[1, 0..0]
  // nothing; K[2, 2..9] t = 2, 3 (9 is past the size: nothing more, no growth); K[, 3] t = 3
  // of every l. Emptied entries read as the @init -1.
  const std::vector<float> step1 = {1,  2,  -1, -1, -1, -1, -1, -1,   // K[0]
                                    -1, -1, -1, -1, -1, -1, -1, -1,   // K[1]
                                    1,  2,  2,  4,  -1, -1, -1, -1};  // K[2]
  BOOST_TEST(values<float>(exec, "all") == step1, tt::per_element());
  // F[2..] of the @fixed table is t = 2, 3 (the bound 4 is its size); no @init: zeros.
  BOOST_TEST(values<float>(exec, "f") == std::vector<float>({1, 2, 2, 4, 0, 0, 0, 0}),
             tt::per_element());
  BOOST_TEST(exec.fetch("K").shape() == oi::Shape({3, 4, 2}), tt::per_element());  // sizes stay
  // Step 2, n = 1: K[0, 2..3] empties only t = 2 now.
  exec.insert("x", Tensor::from<float>({3, 5}));
  exec.step();
  const std::vector<float> step2 = {3,  5,  6,  10, -1, -1, -1, -1,   // K[0]
                                    -1, -1, -1, -1, -1, -1, -1, -1,   // K[1]
                                    3,  5,  6,  10, -1, -1, -1, -1};  // K[2]
  BOOST_TEST(values<float>(exec, "all") == step2, tt::per_element());
}

BOOST_AUTO_TEST_CASE(a_window_past_a_fixed_bound_fails_as_a_read) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  auto sim = simulate(w, R"(
dynamic { x: f32[D]; }
persistent {
  n: i32 @init(0);
  F(t): f32[D] @table @fixed(t=4);
}
block entry {
  cache.write x >> F[n];
  cache.reset F[2..n+4];
  cache.increment n;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 2}));
  exec.step();  // F[2..4]: nothing was written there
  exec.insert("x", Tensor::from<float>({3, 4}));
  std::string msg = error_of([&] { exec.step(); });  // F[2..5]
  BOOST_TEST(contains(msg, "table 'F': slice end 5 of index t exceeds its @fixed bound t=4"), msg);
  // The failed step changed nothing: F[1] is unwritten again, n still 1.
  BOOST_TEST(values<float>(exec, "F") == std::vector<float>({1, 2, 0, 0, 0, 0, 0, 0}),
             tt::per_element());
  BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({1}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(a_window_under_a_negative_index_fails) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  auto sim = simulate(w, R"(
dynamic { x: f32[D]; }
persistent {
  n: i32 @init(1);
  K(l, t): f32[D] @table;
}
block entry {
  cache.write x >> K[n, 0];
  cache.decrement n;
  cache.reset K[n-1, 0..1];
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 2}));
  std::string msg = error_of([&] { exec.step(); });  // n = 0: K[-1, 0..1]
  BOOST_TEST(contains(msg, "table 'K': index l = -1 is negative"), msg);
  BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({1}), tt::per_element());
  BOOST_TEST(exec.fetch("K").shape() == oi::Shape({0, 0, 2}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(a_window_of_a_table_of_matrices) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { x: f32[1, 2]; }
persistent {
  n: i32 @init(0);
  C(l, i, j): f32[1, 2] @table @auto_dim(i, j) @fixed(i=2, j=2) @init(-1.0);
}
volatile { m: f32[4, 1, 2]; }
block entry {
  loop rows (l in 0..4) { cache.write x >> C[l, 0, 0]; }
  cache.reset C[n+1..3];
  cache.read C[0..4, 0..1, 0..2] >> m;
  cache.increment n;
  return m;
}
)");
  auto exec = sim.make_executor();
  // Step 1: C[1..3] are fresh matrices again (@init -1); C[0] and C[3] keep x.
  exec.insert("x", Tensor::from<float>({1, 2}, {1, 2}));
  exec.step();
  BOOST_TEST(values<float>(exec, "m") == std::vector<float>({1, 2, -1, -1, -1, -1, 1, 2}),
             tt::per_element());
  // Step 2, n = 1: C[2..3] only.
  exec.insert("x", Tensor::from<float>({3, 4}, {1, 2}));
  exec.step();
  BOOST_TEST(values<float>(exec, "m") == std::vector<float>({3, 4, 3, 4, -1, -1, 3, 4}),
             tt::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
