// The glsl target's f16, bool, i64, attention and table support, each in a small graph run on
// a Vulkan device by the manifest runner and compared with the simulator on the CPU backend
// (glsl_case.hpp): f16 casts at ties, overflow, NaN and subnormals bit for bit (and a few
// against the bits ops.md's rounding gives), i64 movement and arg reductions, comparisons
// driving host branches, attention with bool, f32 and causal masks, prefix tables chosen by loop
// indices and persistent tables growing past their first capacity, with window reads and
// slice writes. No Vulkan device: SKIPPED, exit 77.
#define BOOST_TEST_MODULE glsl_features
#include <bit>

#include "glsl_case.hpp"

using namespace glsl_test;

namespace {

float bits(uint32_t b) {
  return std::bit_cast<float>(b);
}

}  // namespace

BOOST_AUTO_TEST_CASE(f16_casts_ties_overflow_nan_subnormals) {
  Case c;
  c.name = "f16_cast";
  c.source = R"(
dynamic { x: f32[N]; }
volatile { h: f16[N]; y: f32[N]; s: f16[N]; }
block entry {
  op cast(x, to=f16) >> h;
  op cast(h, to=f32) >> y;
  op add(h, h) >> s;
  return h, y, s;
}
)";
  const std::vector<float> x = {
      1.0f + 0x1p-11f,      // tie between 1 and 1 + 2^-10: even, 1
      1.0f + 3 * 0x1p-11f,  // tie: even, 1 + 2^-9
      2049.0f,              // tie: 2048
      2051.0f,              // tie: 2052
      65504.0f,             // the largest f16
      65519.0f,             // below the tie to inf: 65504
      65520.0f,             // the tie to inf: inf
      -65520.0f,
      1e10f,
      INFINITY,
      -INFINITY,
      NAN,
      bits(0x7f800001u),  // signalling NaN, payload below f16's mantissa: quiet NaN
      bits(0xffa02000u),  // negative NaN with a payload kept in its high bits
      -0.0f,
      0x1p-24f,             // the smallest f16 subnormal
      0x1p-25f,             // tie to zero
      3 * 0x1p-25f,         // tie: 2^-23
      0x1p-14f - 0x1p-25f,  // tie past the largest subnormal: carries to 2^-14
      1e-30f,               // far below: zero
      bits(0x00000005u),    // an f32 subnormal: zero
      -bits(0x00400000u),   // a negative f32 subnormal: -0
      0.1f,
      -3.14159265f,
      33000.5f,
      1.0f / 3.0f,
  };
  c.model = [n = x.size()](ModelWriter& w) { w.add_sizevar("N", static_cast<int64_t>(n)); };
  c.inputs = {{"x", Tensor::from(x, {x.size()})}};
  c.steps = 2;
  run_case(c);
  // A few against the bits ops.md's rounding gives, independently of the simulator.
  const Model got = Model::open(fs::path(TEST_WORK_DIR) / "f16_cast" / "got.oinf");
  const Tensor h = got.tensor("h");
  std::vector<uint16_t> hb(x.size());
  std::memcpy(hb.data(), h.bytes().data(), hb.size() * 2);
  BOOST_TEST(hb[0] == 0x3c00);
  BOOST_TEST(hb[1] == 0x3c02);
  BOOST_TEST(hb[2] == 0x6800);
  BOOST_TEST(hb[3] == 0x6802);
  BOOST_TEST(hb[4] == 0x7bff);
  BOOST_TEST(hb[5] == 0x7bff);
  BOOST_TEST(hb[6] == 0x7c00);
  BOOST_TEST(hb[7] == 0xfc00);
  BOOST_TEST(hb[11] == 0x7e00);
  BOOST_TEST(hb[12] == 0x7e00);
  BOOST_TEST(hb[13] == 0xff01);
  BOOST_TEST(hb[14] == 0x8000);
  BOOST_TEST(hb[15] == 0x0001);
  BOOST_TEST(hb[16] == 0x0000);
  BOOST_TEST(hb[17] == 0x0002);
  BOOST_TEST(hb[18] == 0x0400);
  BOOST_TEST(hb[21] == 0x8000);
}

BOOST_AUTO_TEST_CASE(f16_movement_and_integer_casts) {
  Case c;
  c.name = "f16_transpose";
  c.source = R"(
dynamic { x: f32[R, C]; }
volatile { t: f16[C, R]; back: f32[C, R]; i: i32[C, R]; }
block entry {
  assign h: f16[R, C];
  op cast(x, to=f16) >> h;
  op transpose(h) >> t;
  op cast(t, to=f32) >> back;
  op cast(t, to=i32, rounding_mode="nearest_even") >> i;
  return t, back, i;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("R", 7);
    w.add_sizevar("C", 5);
  };
  std::vector<float> x = ramp(35, -70000.0f, 4111.3f);
  x[3] = NAN;
  x[4] = 2.5f;
  x[5] = -0.5f;
  c.inputs = {{"x", Tensor::from(x, {7, 5})}};
  run_case(c);
}

BOOST_AUTO_TEST_CASE(i64_movement_gather_and_arg_reductions) {
  Case c;
  c.name = "i64";
  c.source = R"(
dynamic { x: f32[R, C]; k: i32; }
constant { ids: i64[P]; table: f32[D, V]; }
persistent { last: i64 @init(7); }
volatile { am: i64[R]; an: i64[C]; al: i64[R]; tok: i64; col: f32[D]; both: i64[2, P]; prev: i64; }
block entry {
  assign id2: i64[1, P];
  op argmax_axis(x, axis=1) >> am;
  op argmin_axis(x) >> an;
  op argmax_axis(x, axis=-1, select_first=false) >> al;
  op gather(ids, k) >> tok;
  op gather(table, tok, axis=1) >> col;
  op reshape(ids) >> id2;
  op concat(id2, id2, axis=0) >> both;
  transfer last >> prev;
  transfer tok >> last;
  return am, an, al, tok, col, both, prev, last;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("R", 4);
    w.add_sizevar("C", 6);
    w.add_sizevar("P", 5);
    w.add_sizevar("D", 3);
    w.add_sizevar("V", 6);
    w.add_tensor("ids", Tensor::from(std::vector<int64_t>{3, 0, -1, 5, -6}, {5}));
    w.add_tensor("table", Tensor::from(ramp(18, -1.0f, 0.25f), {3, 6}));
  };
  std::vector<float> x = ramp(24, 3.0f, -0.7f);
  x[2] = 9.0f;  // row 0: a tie between columns 2 and 4
  x[4] = 9.0f;
  x[9] = NAN;  // row 1: the NaN's index
  x[19] = -40.0f;
  x[21] = -40.0f;
  c.step_inputs = {
      {{"x", Tensor::from(x, {4, 6})}, {"k", Tensor::from(std::vector<int32_t>{0}, {})}},
      {{"x", Tensor::from(x, {4, 6})}, {"k", Tensor::from(std::vector<int32_t>{2}, {})}},
      {{"x", Tensor::from(x, {4, 6})}, {"k", Tensor::from(std::vector<int32_t>{4}, {})}}};
  c.steps = 3;
  run_case(c);
}

BOOST_AUTO_TEST_CASE(comparisons_drive_host_branches) {
  Case c;
  c.name = "bool_branch";
  c.source = R"(
dynamic { x: f32[N]; lim: f32[N]; }
constant { zero: i32 @init(0); two: i32 @init(2); }
persistent { pos: i32 @init(0); acc: f32[N]; }
volatile { m: bool[N]; n: bool[N]; y: f32[N]; }
block entry {
  assign first: bool;
  assign late: bool;
  assign slots: i32[N];
  assign ks: i32[N];
  assign below: bool[N];
  op eq(pos, zero) >> first;
  op ge(pos, two) >> late;
  op iota(slots) >> ks;
  op le(ks, pos) >> m;
  op lt(x, lim) >> below;
  op and(m, below) >> n;
  op not(n) >> n;
  branch first start more;
  cache.increment pos;
  return m, n, acc, y;
}
block start { op add(x, x) >> acc; return; }
block more { branch late twice once; return; }
block twice { op mul(acc, x) >> y; op add(acc, y) >> acc; return; }
block once { op sub(acc, x) >> acc; return; }
)";
  c.model = [](ModelWriter& w) { w.add_sizevar("N", 9); };
  std::vector<float> x = ramp(9, -1.0f, 0.3f), lim = ramp(9, 0.5f, -0.1f);
  x[4] = NAN;
  lim[6] = NAN;
  c.inputs = {{"x", Tensor::from(x, {9})}, {"lim", Tensor::from(lim, {9})}};
  c.steps = 4;
  run_case(c);
}

BOOST_AUTO_TEST_CASE(attention_with_masks) {
  Case c;
  c.name = "attention";
  c.source = R"(
dynamic { q: f32[H, Q, D]; k: f32[H, T, D]; v: f32[H, T, E]; k1: f32[1, T, D]; p: i32; fm: f32[Q, T]; }
constant { none: i32 @init(-1); }
volatile { y: f32[H, Q, E]; yc: f32[H, Q, E]; yf: f32[H, Q, E]; y0: f32[H, Q, E]; yb: f32[H, Q, E]; }
block entry {
  assign slots: i32[T];
  assign ks: i32[T];
  assign mask: bool[T];
  assign off: bool[T];
  op iota(slots) >> ks;
  op le(ks, p) >> mask;
  op le(ks, none) >> off;
  op attention(q, k, v, mask) >> y;
  op attention(q, k, v, causal=true) >> yc;
  op attention(q, k, v, fm, scale=0.3) >> yf;
  op attention(q, k, v, off) >> y0;
  op attention(q, k1, v, mask) >> yb;
  return y, yc, yf, y0, yb;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("H", 3);
    w.add_sizevar("Q", 2);
    w.add_sizevar("T", 11);
    w.add_sizevar("D", 8);
    w.add_sizevar("E", 5);
  };
  std::vector<float> fm = ramp(22, -2.0f, 0.2f);
  fm[3] = -INFINITY;
  auto step = [&](int32_t p) {
    return std::map<std::string, Tensor>{{"q", Tensor::from(ramp(48, -1.0f, 0.05f), {3, 2, 8})},
                                         {"k", Tensor::from(ramp(264, 0.7f, -0.006f), {3, 11, 8})},
                                         {"v", Tensor::from(ramp(165, -3.0f, 0.04f), {3, 11, 5})},
                                         {"k1", Tensor::from(ramp(88, -0.4f, 0.011f), {1, 11, 8})},
                                         {"p", Tensor::from(std::vector<int32_t>{p}, {})},
                                         {"fm", Tensor::from(fm, {2, 11})}};
  };
  c.step_inputs = {step(0), step(4), step(10)};
  c.steps = 3;
  c.tolerance = true;
  c.atol = 1e-5;
  c.rtol = 1e-4;
  run_case(c);
}

BOOST_AUTO_TEST_CASE(prefix_and_persistent_tables) {
  Case c;
  c.name = "tables";
  c.source = R"(
dynamic { x: f32[N]; }
constant { W(l): f32[N] @pattern("w.{l}"); }
persistent {
  pos: i32 @init(14);
  K(l, t): f16[N] @table @fixed(l=L);
  seen(t): f32[N] @table @fixed(t=T);
}
volatile { win: f16[8, N]; all: f16[T, N]; z: f32[N]; }
block entry {
  assign h: f32[N];
  loop layers (l in 0..L) {
    op mul(x, W[l]) >> h;
    op cast(h, to=f16) >> K[l, pos];
  }
  cache.write x >> seen[pos];
  cache.read K[1, 12..20] >> win;
  cache.read K[0, 0..T] >> all;
  op add(seen[pos], W[1]) >> z;
  cache.increment pos;
  return win, all, z;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("N", 6);
    w.add_sizevar("L", 2);
    w.add_sizevar("T", 20);
    w.add_tensor("w.0", Tensor::from(ramp(6, 0.5f, 0.25f), {6}));
    w.add_tensor("w.1", Tensor::from(ramp(6, -1.5f, 0.5f), {6}));
  };
  c.step_inputs = {{{"x", Tensor::from(ramp(6, 1.0f, 0.1f), {6})}},
                   {{"x", Tensor::from(ramp(6, -2.0f, 0.3f), {6})}},
                   {{"x", Tensor::from(ramp(6, 3.0f, -0.7f), {6})}},
                   {{"x", Tensor::from(ramp(6, 0.25f, 0.01f), {6})}}};
  c.steps = 4;  // positions 14-17: K grows past its first 16 positions
  run_case(c);
}

// cache.write of a whole value into a slice (dsl.md: the rows as entries), at a static range and
// at one that moves with a persistent index, growing S past its first capacity of 16.
BOOST_AUTO_TEST_CASE(slices_written_as_entries) {
  Case c;
  c.name = "slice_writes";
  c.source = R"(
dynamic { x: f32[3, N]; }
persistent {
  pos: i32 @init(11);
  S(t): f32[N] @table;
  F(l, t): f16[N] @table @fixed(l=2, t=T);
}
volatile { h: f16[3, N]; all: f32[24, N]; }
block entry {
  cache.write x >> S[pos..pos+3];
  op cast(x, to=f16) >> h;
  cache.write h >> F[0, 0..3];
  cache.write h >> F[1, pos..pos+3];
  cache.read S[0..24] >> all;
  cache.increment 3 pos;
  return all, F;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("N", 5);
    w.add_sizevar("T", 24);
  };
  c.step_inputs = {{{"x", Tensor::from(ramp(15, 1.0f, 0.1f), {3, 5})}},
                   {{"x", Tensor::from(ramp(15, -2.0f, 0.3f), {3, 5})}},
                   {{"x", Tensor::from(ramp(15, 3.0f, -0.7f), {3, 5})}},
                   {{"x", Tensor::from(ramp(15, 0.25f, 0.01f), {3, 5})}}};
  c.steps = 4;  // positions 11-22
  run_case(c);
}

BOOST_AUTO_TEST_CASE(table_errors_stop_the_run) {
  Case c;
  c.name = "table_entry_of_another_shape";
  c.source = R"(
dynamic { x: f32[N]; }
constant { W(l): f32[N] @pattern("w.{l}"); }
persistent { n: i32 @init(3); }
volatile { y: f32[N]; }
block entry {
  loop layers (l in 0..n) {
    op mul(x, W[l]) >> y;
  }
  return y;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("N", 4);
    w.add_tensor("w.0", Tensor::from(ramp(4, 0.5f, 0.25f), {4}));
    w.add_tensor("w.1", Tensor::from(ramp(4, -1.5f, 0.5f), {4}));
    w.add_tensor("w.2", Tensor::from(ramp(5, -1.5f, 0.5f), {5}));
  };
  c.inputs = {{"x", Tensor::from(ramp(4, 1.0f, 0.1f), {4})}};
  c.expect_error = "table entry 'W[2]' is unavailable (model tensor 'w.2'";
  run_case(c);

  c.name = "table_past_bound";
  c.source = R"(
dynamic { x: f32[N]; }
persistent { pos: i32 @init(5); seen(t): f32[N] @table @fixed(t=T); }
volatile { y: f32[N]; }
block entry {
  op add(x, x) >> y;
  cache.write y >> seen[pos];
  return y;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("N", 4);
    w.add_sizevar("T", 5);
  };
  c.expect_error = "table 'seen': index t = 5 exceeds its @fixed bound t=5";
  run_case(c);

  // A dynamic input never inserted: the simulator's error, not a step on zeros and exit 0.
  c.name = "dynamic_input_not_inserted";
  c.source = R"(
dynamic { x: f32[N]; k: f32[N]; }
volatile { y: f32[N]; }
block entry {
  op add(x, k) >> y;
  return y;
}
)";
  c.model = [](ModelWriter& w) { w.add_sizevar("N", 4); };
  c.inputs = {{"x", Tensor::from(ramp(4, 1.0f, 0.1f), {4})}};
  c.expect_error = "dynamic variable 'k' was not inserted for this step";
  run_case(c);
}

// The C target's fixtures of these features, as they are (bit-exact: conversions round once).
BOOST_AUTO_TEST_CASE(the_c_targets_narrow_float_argmax_and_table_fixtures) {
  Case f16 = c_fixture("f16_cast", "loops_model.txt", 1);
  f16.tolerance = false;
  run_case(f16);
  Case argmax = c_fixture("argmax", "loops_model.txt", 2);
  argmax.tolerance = false;
  run_case(argmax);
  run_case(c_fixture("prefix_table", "prefix_table_model.txt", 2));
  // Growing tables past their capacity, windows past the size, entry and whole-table resets,
  // every entry of a @fixed table, whole tables returned (shapes growing step by step).
  Case tables = c_fixture("tables", "loops_model.txt", 3);
  tables.tolerance = false;
  run_case(tables);
}

// The C target's nn_extra.oi (pow, log_softmax, batch_norm) with its f64 pow (the f64 math is
// not there yet) replaced by an f64 log_softmax, within ops-nn.md's tolerances.
BOOST_AUTO_TEST_CASE(pow_log_softmax_and_batch_norm) {
  Case c = c_fixture("nn_extra", "nn_extra_model.txt", 1);
  const std::string f64_pow = "op pow(d, d) >> pd;";
  const size_t at = c.source.find(f64_pow);
  BOOST_REQUIRE(at != std::string::npos);
  c.source.replace(at, f64_pow.size(), "op log_softmax(d) >> pd;");
  run_case(c);
}

BOOST_AUTO_TEST_CASE(unsupported_uses_are_named) {
  auto sizes = [](ModelWriter& w) {
    w.add_sizevar("N", 8);
    w.add_sizevar("L", 2);
  };
  // round, casts to bool and i64 arithmetic run through the Vulkan backend's kernels.
  std::string e = emit_error(
      "dynamic { x: f32[N]; }\nvolatile { y: f32[N]; }\nblock entry {\n"
      "  op round(x) >> y;\n  return y;\n}\n",
      sizes);
  BOOST_TEST(e.empty(), e);
  e = emit_error(
      "dynamic { x: f32[N]; }\nvolatile { y: bool[N]; }\nblock entry {\n  op cast(x, to=bool) >> "
      "y;\n"
      "  return y;\n}\n",
      sizes);
  BOOST_TEST(e.empty(), e);
  e = emit_error(
      "dynamic { x: i64[N]; }\nvolatile { y: i64[N]; }\nblock entry {\n  op add(x, x) >> y;\n"
      "  return y;\n}\n",
      sizes);
  BOOST_TEST(e.empty(), e);
  // An op on an @auto_dim matrix reads it through a copy into a scratch value of its declared
  // shape; one that an access grows, where the op's static output pins that shape, too (the
  // copy's guard stops another shape with the simulator's words, auto_dim_guard.hpp).
  e = emit_error(
      "dynamic { x: f32[N]; }\npersistent { M(i): f32[N] @auto_dim(i); }\n"
      "volatile { y: f32[N]; }\nblock entry {\n  op add(M, x) >> y;\n  return y;\n}\n",
      sizes);
  BOOST_TEST(e.empty(), e);
  e = emit_error(
      "dynamic { x: f32[N]; }\npersistent { M(i): f32[N] @auto_dim(i); n: i32; }\n"
      "volatile { y: f32[N]; }\nblock entry {\n  op add(x, x) >> M[n];\n"
      "  op add(M, x) >> y;\n  return y;\n}\n",
      sizes);
  BOOST_TEST(e.empty(), e);
  // A copy from table entries of run-time count into a matrix that grows: neither side's shape
  // is static, one host copy (entries_and_matrix).
  e = emit_error(
      "dynamic { x: f32[N]; }\npersistent { K(t): f32[N] @table; M(i, j): f32[1, N] "
      "@auto_dim(i, j); n: i32; }\nblock entry {\n  cache.write x >> K[n];\n"
      "  cache.read K[0..n] >> M[n, 0];\n  return M;\n}\n",
      sizes);
  BOOST_TEST(e.empty(), e);
}
