// Consumers of a yield that each await tables of @auto_dim matrices another writes (a cycle):
// every reader sees them as yielded (dsl.md "Concurrency"; the simulator's
// Memory::table_snapshot). The graph also goes through both synthesis targets against the
// simulator (synth_c_exec_graphs, synth_glsl_exec_graphs): they copy C (a growable table of
// matrices) and F (a @fixed one) at the yield. The expected values are worked out by hand.
#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(yield_copies)

BOOST_AUTO_TEST_CASE(readers_see_tables_of_matrices_as_yielded) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { x: f32[1, 2]; }
persistent {
  C(l, i, j): f32[1, 2] @table @auto_dim(i, j) @init(1.0);
  F(l, i, j): f32[1, 2] @table @fixed(l=2) @auto_dim(i, j);
}
volatile { c: f32[1, 2]; f: f32[1, 2]; g: f32[1, 2]; h: f32[1, 2]; }
block entry {
  yield C, F;
  await C, F;
  return c, f, g, h;
}
block wc {
  await C, F;
  cache.read F[1, 0..1, 0..2] >> f;
  op add(f, x) >> f;
  cache.write f >> C[0, 0, 0];
  yield C, F;
}
block wf {
  await C, F;
  cache.read C[0, 0..1, 0..2] >> c;
  op add(c, x) >> c;
  cache.write c >> F[1, 0, 0];
  yield C, F;
}
block rd {
  await C, F;
  cache.read F[1, 0..1, 0..2] >> g;
  cache.read C[0, 0..1, 0..2] >> h;
  yield C, F;
}
)");
  auto exec = sim.make_executor();
  // Step 0: as yielded C[0] is fresh (@init 1: [1, 1]) and F[1] zeros. wc: f = [0, 0] + x,
  // C[0] = f; wf: c = [1, 1] + x (not wc's C[0]), F[1] = c; rd: F[1] and C[0] as yielded.
  exec.insert("x", Tensor::from<float>({1, 2}, {1, 2}));
  exec.step();
  BOOST_TEST(values<float>(exec, "f") == std::vector<float>({1, 2}), tt::per_element());
  BOOST_TEST(values<float>(exec, "c") == std::vector<float>({2, 3}), tt::per_element());
  BOOST_TEST(values<float>(exec, "g") == std::vector<float>({0, 0}), tt::per_element());
  BOOST_TEST(values<float>(exec, "h") == std::vector<float>({1, 1}), tt::per_element());
  // Step 1: yielded C[0] = [1, 2], F[1] = [2, 3].
  exec.insert("x", Tensor::from<float>({3, 5}, {1, 2}));
  exec.step();
  BOOST_TEST(values<float>(exec, "f") == std::vector<float>({5, 8}), tt::per_element());
  BOOST_TEST(values<float>(exec, "c") == std::vector<float>({4, 7}), tt::per_element());
  BOOST_TEST(values<float>(exec, "g") == std::vector<float>({2, 3}), tt::per_element());
  BOOST_TEST(values<float>(exec, "h") == std::vector<float>({1, 2}), tt::per_element());
  // After it: C[0] = wc's [5, 8], F[1] = wf's [4, 7] (F fetched whole: F[0] fresh zeros).
  BOOST_TEST(values<float>(exec, "F") == std::vector<float>({0, 0, 4, 7}), tt::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
