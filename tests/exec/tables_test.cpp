// Persistent tables, @fixed bounds, slices, @auto_dim growth and prefix tables.
#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(tables)

// KV-cache decode: every step writes each layer's key at `pos` and reads a fixed window.
BOOST_AUTO_TEST_CASE(kv_cache_decode_with_a_fixed_table) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  w.add_sizevar("T", 3);
  w.add_tensor("off.0", Tensor::from<float>({0, 0}));
  w.add_tensor("off.1", Tensor::from<float>({100, 100}));
  auto sim = simulate(w, R"(
dynamic { k: f32[D]; }
volatile {
  off(l): f32[D] @pattern("off.{l}");
  window: f32[T, D];
}
persistent {
  pos: i32 @init(0);
  K(l, t): f32[D] @table @fixed(l=2, t=T);
}
block entry {
  assign shifted: f32[D];
  loop layers (l in 0..2) {
    op add(k, off[l]) >> shifted;
    cache.write shifted >> K[l, pos];
  }
  cache.read K[1, 0..T] >> window;
  cache.increment pos;
  return window;
}
)");
  auto exec = sim.make_executor();
  exec.insert("k", Tensor::from<float>({1, 2}));
  exec.step();
  // Unwritten entries of the window read as zeros (no @init).
  BOOST_TEST(values<float>(exec, "window") == std::vector<float>({101, 102, 0, 0, 0, 0}),
             tt::per_element());
  exec.insert("k", Tensor::from<float>({3, 4}));
  exec.step();
  exec.insert("k", Tensor::from<float>({5, 6}));
  exec.step();
  BOOST_TEST(values<float>(exec, "window") == std::vector<float>({101, 102, 103, 104, 105, 106}),
             tt::per_element());
  Tensor all = exec.fetch("K");  // stacked as K[] would be: [l, t, D]
  BOOST_TEST(all.shape() == oi::Shape({2, 3, 2}), tt::per_element());
  BOOST_TEST(std::vector<float>(all.as<float>().begin(), all.as<float>().end()) ==
                 std::vector<float>({1, 2, 3, 4, 5, 6, 101, 102, 103, 104, 105, 106}),
             tt::per_element());
  exec.insert("k", Tensor::from<float>({7, 8}));
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "table 'K'"));
  BOOST_TEST(contains(msg, "t = 3"));
  BOOST_TEST(contains(msg, "@fixed bound t=3"));
}

BOOST_AUTO_TEST_CASE(growable_table_slices) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  auto sim = simulate(w, R"(
dynamic { x: f32[D]; }
persistent { H(t): f32[D] @table @init(-1.0); }
volatile {
  head: f32[2, D];
  tail: f32[3, D];
  past: f32[3, D];
  one: f32[D];
  all: f32[5, D];
}
block entry {
  loop fill (i in 0..5) {
    cache.write x >> H[i];
    op add(x, x) >> x;
  }
  cache.read H[0..-3] >> head;
  cache.read H[2..] >> tail;
  cache.read H[3..6] >> past;
  cache.read H[3] >> one;
  cache.reset H[1];
  cache.read H[] >> all;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 2}));
  exec.step();
  // Entries are x, 2x, 4x, 8x, 16x.
  BOOST_TEST(values<float>(exec, "head") == std::vector<float>({1, 2, 2, 4}), tt::per_element());
  BOOST_TEST(values<float>(exec, "tail") == std::vector<float>({4, 8, 8, 16, 16, 32}),
             tt::per_element());
  // An end past the current size reads unwritten entries as @init, without growing.
  BOOST_TEST(values<float>(exec, "past") == std::vector<float>({8, 16, 16, 32, -1, -1}),
             tt::per_element());
  BOOST_TEST(values<float>(exec, "one") == std::vector<float>({8, 16}), tt::per_element());
  BOOST_TEST(values<float>(exec, "all") == std::vector<float>({1, 2, -1, -1, 4, 8, 8, 16, 16, 32}),
             tt::per_element());
  BOOST_TEST(exec.fetch("H").shape() == oi::Shape({5, 2}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(slice_write_and_shape_mismatch) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  auto sim = simulate(w, R"(
dynamic { pair: f32[2, D]; }
persistent {
  H(t): f32[D] @table;
  n: i32 @init(1);
}
volatile { got: f32[2, D]; }
block entry {
  cache.write pair >> H[1..3];
  cache.read H[n..] >> got;
  cache.increment n;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("pair", Tensor::from<float>({1, 2, 3, 4}, {2, 2}));
  exec.step();
  BOOST_TEST(values<float>(exec, "got") == std::vector<float>({1, 2, 3, 4}), tt::per_element());
  exec.insert("pair", Tensor::from<float>({1, 2, 3, 4}, {2, 2}));
  std::string msg = error_of([&] { exec.step(); });  // H[2..] is one entry now
  BOOST_TEST(contains(msg, "[1, 2]"));
  BOOST_TEST(contains(msg, "[2, 2]"));
  BOOST_TEST(contains(msg, "'got'"));
}

BOOST_AUTO_TEST_CASE(auto_dim_grows_and_keeps_cells) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { row: f32[1, 3]; }
persistent {
  n: i32 @init(0);
  M(i, j): f32[2, 3] @auto_dim(i, j) @fixed(i=3, j=1) @init(7.0);
}
volatile {
  padded: f32[5, 4];
  first: f32[1, 3];
}
block entry {
  cache.increment n;
  cache.read M[n, 0] >> padded;
  cache.write row >> M[0..1, ];
  cache.read M[0..1, ] >> first;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("row", Tensor::from<float>({1, 2, 3}, {1, 3}));
  exec.step();
  // n = 1: M is [3, 3] of 7s, padded with zeros to the bound's shape [5, 4].
  std::vector<float> want = {7, 7, 7, 0, 7, 7, 7, 0, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  BOOST_TEST(values<float>(exec, "padded") == want, tt::per_element());
  BOOST_TEST(values<float>(exec, "first") == std::vector<float>({1, 2, 3}), tt::per_element());
  exec.insert("row", Tensor::from<float>({4, 5, 6}, {1, 3}));
  exec.step();
  // n = 2: [4, 3]; row 0 kept its place from step 1 when M grew.
  want = {1, 2, 3, 0, 7, 7, 7, 0, 7, 7, 7, 0, 7, 7, 7, 0, 0, 0, 0, 0};
  BOOST_TEST(values<float>(exec, "padded") == want, tt::per_element());
  Tensor m = exec.fetch("M");
  BOOST_TEST(m.shape() == oi::Shape({4, 3}), tt::per_element());
  BOOST_TEST(m.as<float>()[0] == 4.0f);
  exec.insert("row", Tensor::from<float>({0, 0, 0}, {1, 3}));
  exec.step();  // n = 3: the bound itself is allowed
  exec.insert("row", Tensor::from<float>({0, 0, 0}, {1, 3}));
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "auto_dim 'M'"));
  BOOST_TEST(contains(msg, "@fixed bound i=3"));
}

// Nested loops over a named-pattern and a default-pattern prefix table, writing a table
// indexed by both loop indices.
BOOST_AUTO_TEST_CASE(nested_loops_over_prefix_tables) {
  oi::ModelWriter w;
  w.add_tensor("layer.0.w", Tensor::from<float>({2, 3}));
  w.add_tensor("layer.1.w", Tensor::from<float>({10, 1}));
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h)
      w.add_tensor("Bias." + std::to_string(l) + "." + std::to_string(h),
                   Tensor::from<float>({static_cast<float>(l * 10 + h), 1}));
  auto sim = simulate(w, R"(
dynamic { x: f32[2]; }
volatile {
  W(l): f32[2] @pattern("layer.{l}.w");
  Bias(l, h): f32[2];
}
persistent { T(l, h): f32[2] @table @fixed(l=2, h=2); }
block entry {
  assign acc: f32[2];
  transfer x >> acc;
  loop layers (l in 0..2) {
    op mul(acc, W[l]) >> acc;
    loop heads (k in 0..2) {
      op add(acc, Bias[l, k]) >> acc;
      cache.write acc >> T[l, k];
    }
  }
  return acc;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 1}));
  exec.step();
  // l=0: [2,3] -> +[0,1] = [2,4] -> +[1,1] = [3,5]; l=1: *[10,1] = [30,5] -> [40,6] -> [51,7]
  BOOST_TEST(values<float>(exec, "acc") == std::vector<float>({51, 7}), tt::per_element());
  BOOST_TEST(values<float>(exec, "T") == std::vector<float>({2, 4, 3, 5, 40, 6, 51, 7}),
             tt::per_element());
  size_t loops = 0;
  for (const auto& ev : exec.events()) loops += ev.kind == oi::NodeKind::Loop;
  BOOST_TEST(loops == 3u);  // layers once, heads once per layer
}

BOOST_AUTO_TEST_CASE(missing_prefix_entry_is_a_run_time_error) {
  oi::ModelWriter w;
  w.add_tensor("layer.0.w", Tensor::from<float>({2, 3}));
  auto sim = simulate(w, R"(
dynamic { x: f32[2]; }
volatile { W(l): f32[2] @pattern("layer.{l}.w"); }
persistent { layers: i32 @init(2); }
block entry {
  loop all (l in 0..layers) {
    op mul(x, W[l]) >> x;
  }
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 1}));
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "W[1]"));
  BOOST_TEST(contains(msg, "'layer.1.w'"));
}

// `@auto_dim` after `@table` indices: slices across the table index stack one part per matrix,
// written and read back; matrices that grew differently stack only where the boxes agree.
BOOST_AUTO_TEST_CASE(auto_dim_matrices_stack_across_table_indices) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { rows: f32[2, 1, 2]; }
persistent {
  n: i32 @init(0);
  C(l, i, j): f32[1, 2] @table @fixed(l=2) @auto_dim(i, j) @init(9.0);
}
volatile {
  firsts: f32[2, 1, 2];
  whole: f32[2, 2, 2];
}
block entry {
  cache.increment n;
  cache.write rows >> C[0..2, 0..1, ];
  cache.read C[0..2, 0..1, ] >> firsts;
  cache.read C[, 1, 0] >> whole;
  return;
}
)");
  auto exec = sim.make_executor();
  exec.insert("rows", Tensor::from<float>({1, 2, 3, 4}, {2, 1, 2}));
  exec.step();
  // Row 0 of each matrix was written; C[, 1, 0] grew both to [2, 2] with @init rows below.
  BOOST_TEST(values<float>(exec, "firsts") == std::vector<float>({1, 2, 3, 4}), tt::per_element());
  BOOST_TEST(values<float>(exec, "whole") == std::vector<float>({1, 2, 9, 9, 3, 4, 9, 9}),
             tt::per_element());
  Tensor c0 = exec.fetch("C");
  BOOST_TEST(c0.shape() == oi::Shape({2, 2, 2}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(auto_dim_stacking_unequal_matrices_names_both_shapes) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
persistent {
  C(l, i, j): f32[1, 2] @table @auto_dim(i, j);
}
volatile {
  grown: f32[3, 2];
  out: f32[2, 1, 2];
}
block entry {
  cache.read C[1, 2, 0] >> grown;
  cache.read C[0..2, , ] >> out;
  return;
}
)");
  auto exec = sim.make_executor();
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "auto_dim table 'C'"), msg);
  BOOST_TEST(contains(msg, "cannot be stacked"), msg);
  BOOST_TEST(contains(msg, "[3, 2]"), msg);
  BOOST_TEST(contains(msg, "[1, 2]"), msg);
}

// An op whose operands are shaped at run time (table slices, @auto_dim matrices): a result that
// broadcasts to the access fills it, another is cache.write's error (dsl.md), checked before the
// kernel runs (it used to run over the access's shape and read past its inputs); a state the
// failed step touched is as before.
BOOST_AUTO_TEST_CASE(op_results_shaped_at_run_time_must_fit_their_access) {
  oi::ModelWriter w;
  w.add_sizevar("D", 3);
  auto sim = simulate(w, R"(
dynamic { x: f32[2, D]; v: f32[2]; }
persistent {
  K(t): f32[D] @table;
  M(i): f32[2] @auto_dim(i);
  pos: i32 @init(0);
  end: i32 @init(2);
  r: i32 @init(0);
}
block entry {
  op add(x, x) >> K[pos..end];
  op add(v, v) >> M[r];
  cache.increment 2 pos;
  cache.increment 3 end;
  return K;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  exec.insert("v", Tensor::from<float>({1, 2}));
  exec.step();  // K[0..2] = 2x, M = 2v
  BOOST_TEST(values<float>(exec, "K") == std::vector<float>({2, 4, 6, 8, 10, 12}),
             tt::per_element());
  BOOST_TEST(values<float>(exec, "M") == std::vector<float>({2, 4}), tt::per_element());
  // Step 1: the window K[2..5] has 3 entries, the result 2.
  exec.insert("x", Tensor::from<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  exec.insert("v", Tensor::from<float>({1, 2}));
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "cannot store a value of shape [2, 3] into 'K'"), msg);
  BOOST_TEST(contains(msg, "[3, 3]"), msg);
  BOOST_TEST(values<int32_t>(exec, "pos") == std::vector<int32_t>({2}), tt::per_element());
  BOOST_TEST(exec.fetch("K").shape() == oi::Shape({2, 3}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(a_result_that_broadcasts_to_a_slice_fills_each_entry) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  auto sim = simulate(w, R"(
dynamic { x: f32[D]; }
persistent {
  K(t): f32[D] @table;
  S(t): f32[D] @table;
}
block entry {
  op softmax(x, axis=0) >> K[0..2];
  op add(x, x) >> S[1..3];
  return K, S;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({0, 0}));  // softmax of equal values: 0.5 each, exactly
  exec.step();
  BOOST_TEST(values<float>(exec, "K") == std::vector<float>({0.5, 0.5, 0.5, 0.5}),
             tt::per_element());
  exec.insert("x", Tensor::from<float>({1, -2}));
  exec.step();
  BOOST_TEST(values<float>(exec, "S") == std::vector<float>({0, 0, 2, -4, 2, -4}),
             tt::per_element());
}

BOOST_AUTO_TEST_CASE(op_on_a_grown_auto_dim_matrix_must_fit_it) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { v: f32[2]; }
persistent {
  M(i): f32[2] @auto_dim(i);
  r: i32 @init(1);
}
block entry {
  op add(v, v) >> M[r];
  return M;
}
)");
  auto exec = sim.make_executor();
  exec.insert("v", Tensor::from<float>({1, 2}));
  std::string msg = error_of([&] { exec.step(); });  // M[1] grows M to [3]
  BOOST_TEST(
      contains(msg, "cannot store a value of shape [2] as auto_dim 'M' of current shape [3]"), msg);
  BOOST_TEST(exec.fetch("M").shape() == oi::Shape({2}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(an_op_reading_a_grown_auto_dim_matrix_must_give_its_output_shape) {
  oi::ModelWriter w;
  w.add_sizevar("D", 2);
  auto sim = simulate(w, R"(
dynamic { w: f32[D, D]; }
persistent {
  M(i, j): f32[1, D] @auto_dim(i, j) @init(1.0);
  r: i32 @init(0);
}
volatile { y: f32[1, D]; }
block entry {
  op matmul(M[r, 0], w) >> y;
  cache.increment r;
  return y;
}
)");
  auto exec = sim.make_executor();
  exec.insert("w", Tensor::from<float>({1, 2, 3, 4}, {2, 2}));
  exec.step();  // M[0] is [1, D] of ones
  BOOST_TEST(values<float>(exec, "y") == std::vector<float>({4, 6}), tt::per_element());
  exec.insert("w", Tensor::from<float>({1, 2, 3, 4}, {2, 2}));
  std::string msg = error_of([&] { exec.step(); });  // M[1] grows M to [2, D]
  BOOST_TEST(contains(msg, "op 'matmul' produces shape [2, 2] but output 'y' has shape [1, 2]"),
             msg);
  // The failed step left r and M as they were: the same error again.
  exec.insert("w", Tensor::from<float>({1, 2, 3, 4}, {2, 2}));
  BOOST_TEST(error_of([&] { exec.step(); }) == msg);
  BOOST_TEST(values<int32_t>(exec, "r") == std::vector<int32_t>({1}), tt::per_element());
  BOOST_TEST(exec.fetch("M").shape() == oi::Shape({1, 2}), tt::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
