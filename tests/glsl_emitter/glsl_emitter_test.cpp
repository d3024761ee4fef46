// The glsl target end to end: plans (devices/lavapipe.json) go through the glsl emitter plugin,
// glslc compiles the shaders, the manifest runner (the generated host program's source, built
// once) runs N steps on a Vulkan device, and every fetched value is compared with the simulator
// on the CPU backend: ints and elementwise f32 bit for bit (ops.md: `div` within 2 ulp),
// matmul and sum/prod/mean within (1e-6, 1e-5). Graphs the emitter cannot express must give
// an error naming what is missing. No Vulkan device: the test prints SKIPPED and exits 77.
#define BOOST_TEST_MODULE glsl_emitter
#include "glsl_case.hpp"

using namespace glsl_test;

BOOST_AUTO_TEST_CASE(minimal_example) {
  const fs::path ex = fs::path(OPENINFER_SOURCE_DIR) / "examples" / "minimal";
  const Model input = Model::open(ex / "input.oinf");
  Case c;
  c.name = "minimal";
  c.inputs = {{"x", input.tensor("x")}};
  c.steps = 3;
  c.fetch = {"y"};
  std::ifstream src(ex / "minimal.oi");
  std::stringstream s;
  s << src.rdbuf();
  c.source = s.str();
  c.model_file = ex / "model.oinf";  // y is declared there without data: @init(5.0) holds
  run_case(c);
}

BOOST_AUTO_TEST_CASE(f32_chain_with_broadcast_and_persistent_state) {
  Case c;
  c.name = "f32_chain";
  c.source = R"(
dynamic { x: f32[R, C]; }
constant { b: f32[C]; s: f32 @init(0.5); }
persistent { acc: f32[R, C]; }
volatile { y: f32[R, C]; z: f32[R, C]; }
block entry {
  assign t0: f32[R, C];
  assign t1: f32[R, C];
  op add(x, b) >> t0;
  op mul(t0, s) >> t1;
  op sub(t1, b) >> t1;
  op max(t1, x) >> t0;
  op neg(t0) >> t0;
  op abs(t0) >> t1;
  op relu(t1, alpha=0.25, clamp_max=3.0) >> y;
  op relu(t0, alpha=0.1, clamp_min=-0.3, clamp_max=0.0) >> t1;
  op min(y, t1) >> z;
  op min(z, b) >> z;
  op clamp(z, min=-1.0, max=-0.0) >> z;
  op add(acc, z) >> acc;
  return y, z, acc;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("R", 37);
    w.add_sizevar("C", 29);
    w.add_tensor("b", Tensor::from(ramp(29, -2.0f, 0.15f), {29}));
  };
  c.inputs = {{"x", Tensor::from(ramp(37 * 29, -5.0f, 0.01f), {37, 29})}};
  c.steps = 3;
  c.fetch = {"y", "z", "acc"};
  run_case(c);
}

BOOST_AUTO_TEST_CASE(f32_div_and_fill) {
  Case c;
  c.name = "f32_div";
  c.source = R"(
dynamic { x: f32[N]; d: f32[N]; }
volatile { y: f32[N]; m: f32[N]; f: f32[N]; }
block entry {
  op div(x, d) >> y;
  op div(x, d, div_by_zero_mask=-1.0) >> m;
  op fill(f, value=2.5) >> f;
  return y, m, f;
}
)";
  c.model = [](ModelWriter& w) { w.add_sizevar("N", 300); };
  std::vector<float> d = ramp(300, -3.0f, 0.02f);
  d[150] = 0.0f;
  d[10] = 1e-40f;
  c.inputs = {{"x", Tensor::from(ramp(300, 7.0f, -0.05f), {300})}, {"d", Tensor::from(d, {300})}};
  c.fetch = {"y", "m", "f"};
  c.div_ulps = true;
  run_case(c);
}

BOOST_AUTO_TEST_CASE(i32_chain) {
  Case c;
  c.name = "i32_chain";
  c.source = R"(
dynamic { a: i32[N]; b: i32[N]; }
volatile { y: i32[N]; q: i32[N]; }
block entry {
  op mul(a, b) >> y;
  op sub(y, a) >> y;
  op neg(y) >> y;
  op abs(y) >> y;
  op clamp(y, min=-5, max=100000) >> y;
  op div(a, b, div_by_zero_mask=7) >> q;
  return y, q;
}
)";
  c.model = [](ModelWriter& w) { w.add_sizevar("N", 1000); };
  std::vector<int32_t> a(1000), b(1000);
  for (int i = 0; i < 1000; ++i) a[i] = i * 7919 - 3000000, b[i] = (i % 13) - 6;
  a[0] = INT32_MIN, b[0] = -1;
  c.inputs = {{"a", Tensor::from(a, {1000})}, {"b", Tensor::from(b, {1000})}};
  c.fetch = {"y", "q"};
  run_case(c);
}

// i64/u64 arithmetic planned for the generic description (features.int64 false): the Vulkan
// backend's emulated (_emu) shaders, no shaderInt64; the simulator's results bit for bit.
BOOST_AUTO_TEST_CASE(i64_arithmetic_without_shader_int64) {
  Case c;
  c.name = "i64_no_int64";
  c.device = (fs::path(OPENINFER_SOURCE_DIR) / "devices" / "generic_vulkan.json").string();
  c.source = R"(
dynamic { a: i64[N]; b: i64[N]; u: u64[N]; }
volatile { y: i64[N]; q: i64[N]; r: i64[N]; s: i64[N]; w: u64[N]; f: f32[N]; }
block entry {
  op mul(a, b) >> y;
  op sub(y, a) >> y;
  op div(a, b, div_by_zero_mask=7) >> q;
  op floor_div(a, b) >> r;
  op rem(y, b) >> s;
  op shr(s, bits=33) >> s;
  op mul(u, u) >> w;
  op div(w, u) >> w;
  op cast(a, to=f32) >> f;
  return y, q, r, s, w, f;
}
)";
  c.model = [](ModelWriter& w) { w.add_sizevar("N", 1000); };
  std::vector<int64_t> a(1000), b(1000);
  std::vector<uint64_t> u(1000);
  for (int i = 0; i < 1000; ++i) {
    a[i] = static_cast<int64_t>((i + 1) * 0x9e3779b97f4a7c15ull);
    b[i] = (i % 17) - 8 + (i % 5 == 0 ? int64_t{1} << 40 : 0);
    u[i] = (i + 3) * 0xbf58476d1ce4e5b9ull;
  }
  a[0] = INT64_MIN, b[0] = -1, b[1] = 0;
  c.inputs = {{"a", Tensor::from(a, {1000})},
              {"b", Tensor::from(b, {1000})},
              {"u", Tensor::from(u, {1000})}};
  c.fetch = {"y", "q", "r", "s", "w", "f"};
  run_case(c);
}

BOOST_AUTO_TEST_CASE(matmul_with_epilogue_and_batches) {
  Case c;
  c.name = "matmul";
  c.source = R"(
dynamic { x: f32[B, M, K]; }
constant { w: f32[K, N]; bias: f32[N]; }
volatile { y: f32[B, M, N]; }
block entry {
  assign h: f32[B, M, N];
  op matmul(x, w) >> h;
  op add(h, bias) >> h;
  op relu(h) >> y;
  return y;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("B", 3);
    w.add_sizevar("M", 21);
    w.add_sizevar("K", 37);
    w.add_sizevar("N", 18);
    w.add_tensor("w", Tensor::from(eighths(37 * 18, 8, 5), {37, 18}));
    w.add_tensor("bias", Tensor::from(eighths(18, 4, 3, 1), {18}));
  };
  // Exact in every summation order (eighths above): the CPU backend's OpenBLAS kernel depends
  // on the processor and OPENBLAS_CORETYPE, so cancelling ramps differed by 2e-6 on some.
  c.inputs = {{"x", Tensor::from(eighths(3 * 21 * 37, 16, 7, 2), {3, 21, 37})}};
  c.fetch = {"y"};
  run_case(c);
}

BOOST_AUTO_TEST_CASE(reductions) {
  Case c;
  c.name = "reductions";
  c.source = R"(
dynamic { x: f32[A, B, C]; }
volatile { s: f32[A, C]; m: f32[A, 1, C]; mean: f32[B]; all: f32; }
block entry {
  op sum_axis(x, axes=[1]) >> s;
  op max_axis(x, axes=[1], keepdims=true) >> m;
  op mean_axis(x, axes=[0, -1]) >> mean;
  op sum_axis(x) >> all;
  return s, m, mean, all;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("A", 5);
    w.add_sizevar("B", 7);
    w.add_sizevar("C", 9);
  };
  // Sums exact in any order (eighths); the means still round once, so within tolerance.
  c.inputs = {{"x", Tensor::from(eighths(5 * 7 * 9, 24, 11, 3), {5, 7, 9})}};
  c.fetch = {"s", "m", "mean", "all"};
  c.tolerance = true;
  run_case(c);
}

BOOST_AUTO_TEST_CASE(softmax_over_an_axis) {
  Case c;
  c.name = "softmax";
  c.source = R"(
dynamic { x: f32[A, B, C]; }
volatile { last: f32[A, B, C]; mid: f32[A, B, C]; }
block entry {
  op softmax(x) >> last;
  op softmax(x, axis=1) >> mid;
  return last, mid;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("A", 3);
    w.add_sizevar("B", 11);
    w.add_sizevar("C", 17);
  };
  c.inputs = {{"x", Tensor::from(ramp(3 * 11 * 17, -20.0f, 0.09f), {3, 11, 17})}};
  c.fetch = {"last", "mid"};
  c.tolerance = true;
  c.atol = 1e-5;
  c.rtol = 1e-4;
  run_case(c);
}

// ops-nn.md's f32 math (tests/synth/c/math.oi without its f64 half): large, tiny, zero,
// negative (log, sqrt: NaN) and infinite inputs over two steps, alone and fused with
// arithmetic; within ops-nn.md's 2 ulp of the CPU backend. Planned for lavapipe.json (fp64:
// computed in f64, math_f64.glsl) and for generic_vulkan.json (no fp64: computed in f32
// arithmetic, math_f32.glsl, and the kernels need no shaderFloat64).
namespace {
Case f32_math_case() {
  Case c;
  c.name = "math";
  c.source = R"(
dynamic { x: f32[N]; }
volatile {
  e: f32[N]; l: f32[N]; r: f32[N]; rs: f32[N]; tr: f32[N]; er: f32[N]; sg: f32[N]; si: f32[N];
  ge: f32[N]; gt: f32[N];
}
block entry {
  op exp(x) >> e;
  op log(x) >> l;
  op sqrt(x) >> r;
  op rsqrt(x) >> rs;
  op tanh(x) >> tr;
  op sin(x) >> er;
  op cos(er) >> er;
  op erf(er) >> er;
  op sigmoid(x) >> sg;
  op silu(x) >> si;
  op mul(si, sg) >> si;
  op gelu(x) >> ge;
  op gelu(x, approximate="tanh") >> gt;
  return e, l, r, rs, tr, er, sg, si, ge, gt;
}
)";
  c.model = text_model("math_model.txt");
  c.steps = 2;
  c.step_inputs = text_inputs("math_input.txt", {"x"}, c.steps);
  c.fetch = {"e", "l", "r", "rs", "tr", "er", "sg", "si", "ge", "gt"};
  c.div_ulps = true;
  return c;
}

bool manifest_uses_f64(const std::string& case_name) {
  const json::value m =
      json::parse(read_text(fs::path(TEST_WORK_DIR) / case_name / "out" / "manifest.json"));
  bool f64 = false;
  for (const json::value& k : m.at("kernels").as_array())
    if (const json::value* v = k.as_object().if_contains("float64")) f64 = f64 || v->as_bool();
  return f64;
}
}  // namespace

BOOST_AUTO_TEST_CASE(f32_math_within_two_ulp) {
  Case c = f32_math_case();
  run_case(c);
  BOOST_TEST(manifest_uses_f64(c.name));
}

BOOST_AUTO_TEST_CASE(f32_math_without_fp64_within_two_ulp) {
  Case c = f32_math_case();
  c.name = "math_no_fp64";
  c.device = (fs::path(OPENINFER_SOURCE_DIR) / "devices" / "generic_vulkan.json").string();
  run_case(c);
  BOOST_TEST(!manifest_uses_f64(c.name));
  // pow (C99's special table and ordinary values) and a matmul epilogue, also without fp64
  Case p;
  p.name = "pow_no_fp64";
  p.device = c.device;
  p.source = R"(
dynamic { x: f32[N]; y: f32[N]; }
constant { w: f32[N, N]; }
volatile { p: f32[N]; h: f32[N, N]; }
block entry {
  op pow(x, y) >> p;
  op matmul(w, w) >> h;
  op sigmoid(h) >> h;
  return p, h;
}
)";
  const float inf = INFINITY, nan = NAN;
  const std::vector<float> px = {2.0f, -2.0f, 0.0f,  -0.0f, inf,  -inf,   1.0f,  -1.0f,
                                 nan,  0.5f,  10.0f, -3.0f, 1.5f, 1e-30f, 7.25f, 0.999f};
  const std::vector<float> py = {10.5f, 3.0f, -1.0f, -3.0f, -2.0f,   3.0f,  nan,    inf,
                                 0.0f,  -inf, 38.5f, 0.5f,  -250.0f, 1.25f, -44.0f, 9e4f};
  p.model = [](ModelWriter& w) {
    w.add_sizevar("N", 16);
    w.add_tensor("w", Tensor::from(eighths(16 * 16, 12, 5), {16, 16}));
  };
  p.inputs = {{"x", Tensor::from(px, {16})}, {"y", Tensor::from(py, {16})}};
  p.fetch = {"p", "h"};
  p.div_ulps = true;
  run_case(p);
  BOOST_TEST(!manifest_uses_f64(p.name));
}

BOOST_AUTO_TEST_CASE(f32_math_on_a_ramp_and_as_an_epilogue) {
  Case c;
  c.name = "math_ramp";
  c.source = R"(
dynamic { x: f32[M, K]; }
constant { w: f32[K, N]; }
volatile { s: f32[M, K]; h: f32[M, N]; }
block entry {
  op sin(x) >> s;
  op exp(s) >> s;
  op sub(s, x) >> s;
  op gelu(s, approximate="tanh") >> s;
  op matmul(x, w) >> h;
  op tanh(h) >> h;
  return s, h;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("M", 9);
    w.add_sizevar("K", 40);
    w.add_sizevar("N", 7);
    w.add_tensor("w", Tensor::from(eighths(40 * 7, 2, 1), {40, 7}));
  };
  // Eighths up to +-30: the matmul's sums are exact in any order, so h differs by tanh alone.
  c.inputs = {{"x", Tensor::from(eighths(9 * 40, 240, 37), {9, 40})}};
  c.fetch = {"s", "h"};
  c.tolerance = true;  // matmul's sums; the math itself is within 2 ulp (case above)
  c.atol = 1e-5;
  c.rtol = 1e-4;
  run_case(c);
}

// tests/synth/c/movement.oi as is: concat (3 inputs, a negative axis; i32), slice (negative
// starts, clamped ends, negative steps), pad (constant with a value, reflect, edge), reshape,
// transpose (a perm and the default), gather (axes 0 and 1, negative indices), iota (f32, i32);
// two steps whose inputs hold -0.0, infinities and tiny values: bit-exact.
BOOST_AUTO_TEST_CASE(moving_data_bit_exact) {
  Case c;
  c.name = "movement";
  c.source = read_text(fs::path(OPENINFER_SOURCE_DIR) / "tests/synth/c/movement.oi");
  c.model = text_model("movement_model.txt");
  c.steps = 2;
  c.step_inputs = text_inputs("movement_input.txt", {"x", "k", "idx"}, c.steps);
  c.fetch = {"cat",  "cati", "sl", "slr", "sneg", "pc", "pr", "pe",
             "flat", "tp",   "td", "g0",  "g1",   "io", "ii"};
  run_case(c);
}

// A gather index out of range is reported by the shader through the status buffer: the
// runner stops after the step with the line, the index and the bound (the simulator fails too).
BOOST_AUTO_TEST_CASE(gather_index_out_of_range_stops_the_run) {
  Case c;
  c.name = "gather_range";
  c.source = R"(
dynamic { x: f32[3, 4]; idx: i32[2]; }
volatile { g: f32[2, 4]; }
block entry {
  op gather(x, idx) >> g;
  return g;
}
)";
  c.model = [](ModelWriter&) {};
  c.inputs = {{"x", Tensor::from(ramp(12, 0.0f, 1.0f), {3, 4})},
              {"idx", Tensor::from(std::vector<int32_t>{1, -4}, {2})}};
  c.fetch = {"g"};
  c.expect_error = "step 0: gather (line 5): index -4 is out of range for axis 0 of size 3";
  run_case(c);
}

// tests/synth/c/conv.oi's f32 convolutions on its data: 1-D with bias, stride, asymmetric pads
// and dilation; 2-D with group 2, strides, pads and dilations, no bias; a 1x1 2-D conv with
// bias; and a depthwise 1-D one. ops-nn.md's tolerance (the CPU backend sums in another order).
BOOST_AUTO_TEST_CASE(conv_within_tolerance) {
  Case c;
  c.name = "conv";
  c.source = R"(
dynamic { x1: f32[2, 4, 9]; x2: f32[1, 4, 6, 7]; }
constant { w1: f32[5, 4, 3]; b1: f32[5]; w2: f32[6, 2, 3, 2]; w3: f32[3, 4, 1, 1]; b3: f32[3];
           wdw: f32[4, 1, 3]; }
volatile { y1: f32[2, 5, 4]; y2: f32[1, 6, 3, 7]; y3: f32[1, 3, 6, 7]; yd: f32[2, 4, 9]; }
block entry {
  op conv(x1, w1, b1, strides=[2], pads=[2, 1], dilations=[2]) >> y1;
  op conv(x2, w2, strides=[2, 1], pads=[1, 0, 1, 2], dilations=[1, 2], group=2) >> y2;
  op conv(x2, w3, b3) >> y3;
  op conv(x1, wdw, pads=[1, 1], group=4) >> yd;
  return y1, y2, y3, yd;
}
)";
  const auto fixture = text_model("conv_model.txt");
  c.model = [fixture](ModelWriter& w) {
    fixture(w);
    w.add_tensor("wdw", Tensor::from(ramp(12, -0.6f, 0.11f), {4, 1, 3}));
  };
  c.steps = 2;
  c.step_inputs = text_inputs("conv_input.txt", {"x1", "x2"}, c.steps);
  c.fetch = {"y1", "y2", "y3", "yd"};
  c.tolerance = true;
  c.atol = 1e-5;
  c.rtol = 1e-4;
  run_case(c);
}

// max_pool bit-exact (NaN wins its windows, +0.0 beats -0.0; i32 too), avg_pool within
// ops-nn.md's tolerance with and without count_include_pad; 1-D and 2-D, strides, pads,
// dilations.
BOOST_AUTO_TEST_CASE(pools) {
  Case c;
  c.name = "pools";
  c.source = R"(
dynamic { x: f32[2, 3, 7, 6]; x1: f32[2, 3, 10]; k: i32[1, 2, 9]; }
volatile {
  m2: f32[2, 3, 4, 3]; m1: f32[2, 3, 4]; mi: i32[1, 2, 4];
  a2: f32[2, 3, 4, 3]; a2p: f32[2, 3, 4, 3]; a1: f32[2, 3, 5];
}
block entry {
  op max_pool(x, kernel=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1], dilations=[1, 2]) >> m2;
  op max_pool(x1, kernel=[3], strides=[3], pads=[1, 1]) >> m1;
  op max_pool(k, kernel=[2], strides=[2], dilations=[2]) >> mi;
  op avg_pool(x, kernel=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]) >> a2;
  op avg_pool(x, kernel=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=true) >> a2p;
  op avg_pool(x1, kernel=[2], strides=[2]) >> a1;
  return m2, m1, mi, a2, a2p, a1;
}
)";
  c.model = [](ModelWriter&) {};
  std::vector<float> x = ramp(2 * 3 * 7 * 6, -3.0f, 0.0371f);
  for (size_t i = 0; i < x.size(); i += 7) x[i] = -x[i];
  x[5] = NAN;
  x[50] = -0.0f;
  x[51] = 0.0f;
  std::vector<float> x1 = ramp(2 * 3 * 10, 2.0f, -0.07f);
  x1[3] = -0.0f;
  x1[4] = -0.0f;
  x1[5] = 0.0f;
  x1[40] = NAN;
  std::vector<int32_t> k = {5, -7, 3, INT32_MIN, 0, 9, -1, 2, 2, -3, 4, 4, 100, -100, 7, 1, 8, 6};
  c.inputs = {{"x", Tensor::from(x, {2, 3, 7, 6})},
              {"x1", Tensor::from(x1, {2, 3, 10})},
              {"k", Tensor::from(k, {1, 2, 9})}};
  c.fetch = {"m2", "m1", "mi"};
  run_case(c);
  c.name = "pools_avg";
  c.fetch = {"a2", "a2p", "a1"};
  c.tolerance = true;
  c.atol = 1e-5;
  c.rtol = 1e-4;
  run_case(c);
}

BOOST_AUTO_TEST_CASE(norms_within_tolerance) {
  Case c;
  c.name = "layer_norm";
  c.source = R"(
dynamic { x: f32[A, B, C]; }
constant { g: f32[C]; b: f32[C]; g2: f32[B, C]; }
volatile { y: f32[A, B, C]; z: f32[A, B, C]; r: f32[A, B, C]; r2: f32[A, B, C]; }
block entry {
  op layer_norm(x, g, b) >> y;
  op layer_norm(x, g2, axis=1, epsilon=0.001) >> z;
  op rms_norm(x, g) >> r;
  op rms_norm(x, g2, axis=-2, epsilon=0.01) >> r2;
  return y, z, r, r2;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_sizevar("A", 3);
    w.add_sizevar("B", 5);
    w.add_sizevar("C", 24);
    w.add_tensor("g", Tensor::from(ramp(24, 0.5f, 0.05f), {24}));
    w.add_tensor("b", Tensor::from(ramp(24, -1.0f, 0.08f), {24}));
    w.add_tensor("g2", Tensor::from(ramp(5 * 24, 1.5f, -0.01f), {5, 24}));
  };
  c.inputs = {{"x", Tensor::from(ramp(3 * 5 * 24, 4.0f, -0.037f), {3, 5, 24})}};
  c.fetch = {"y", "z", "r", "r2"};
  c.tolerance = true;
  c.atol = 1e-5;
  c.rtol = 1e-4;
  run_case(c);
}

BOOST_AUTO_TEST_CASE(loops_and_branches_run_on_the_host) {
  Case c;
  c.name = "control_flow";
  c.source = R"(
dynamic { x: f32[N]; }
constant { on: bool @init(true); off: bool @init(false); reps: i32 @init(3); }
persistent { acc: f32[N]; }
volatile { y: f32[N]; }
block entry {
  loop l (i in 0..reps) {
    op add(acc, x) >> acc;
  }
  branch on twice never;
  branch off never half;
  return acc, y;
}
block twice {
  op add(y, acc) >> y;
  op add(y, acc) >> y;
  return;
}
block half {
  op mul(y, x) >> y;
  return;
}
block never {
  op fill(y, value=-100.0) >> y;
  return;
}
)";
  c.model = [](ModelWriter& w) { w.add_sizevar("N", 50); };
  c.inputs = {{"x", Tensor::from(ramp(50, 0.5f, 0.25f), {50})}};
  c.steps = 2;
  c.fetch = {"acc", "y"};
  run_case(c);
}

// tests/synth/c/cache.oi as is: cache.read/cache.write of a persistent tensor, transfer,
// cache.increment/decrement of i32 scalars (amounts, wrapping) as one-invocation kernels,
// cache.reset to @init; three steps, bit-exact.
BOOST_AUTO_TEST_CASE(whole_value_cache_operations) {
  Case c;
  c.name = "cache";
  c.source = read_text(fs::path(OPENINFER_SOURCE_DIR) / "tests/synth/c/cache.oi");
  c.model = text_model("loops_model.txt");
  c.steps = 3;
  c.inputs = text_inputs("loops_input.txt", {"x"}, 1).front();
  c.fetch = {"state", "snapshot", "step", "down", "counter"};
  run_case(c);
}

// tests/run's steps.oi: a step counter (cache.increment) and a running sum over three steps.
BOOST_AUTO_TEST_CASE(run_test_steps_graph) {
  Case c;
  c.name = "run_steps";
  c.source = read_text(fs::path(OPENINFER_SOURCE_DIR) / "tests/run/data/steps.oi");
  c.model = [](ModelWriter& w) { w.add_sizevar("N", 3); };
  c.steps = 3;
  const fs::path in = fs::path(OPENINFER_SOURCE_DIR) / "tests/run/data/steps_input.txt";
  const Model m = Model::from_bytes(parse_oinf_text(read_text(in), in.string()).to_bytes());
  for (int k = 0; k < c.steps; ++k)
    c.step_inputs.push_back({{"x", m.tensor("x." + std::to_string(k))}});
  c.fetch = {"acc", "count"};
  run_case(c);
}

// yield/await: tests/synth/c/consumer.oi (c2 reads u as it was at the yield although c1 wrote
// it first) and tests/run's pipeline.oi, each over two steps, bit-exact with the simulator.
BOOST_AUTO_TEST_CASE(consumers_run_at_the_yield) {
  Case c;
  c.name = "consumer";
  c.source = read_text(fs::path(OPENINFER_SOURCE_DIR) / "tests/synth/c/consumer.oi");
  c.model = text_model("loops_model.txt");
  c.steps = 2;
  c.inputs = text_inputs("loops_input.txt", {"x"}, 1).front();
  c.fetch = {"y", "u", "v", "w"};
  run_case(c);

  Case p;
  p.name = "run_pipeline";
  p.source = read_text(fs::path(OPENINFER_SOURCE_DIR) / "tests/run/data/pipeline.oi");
  p.model = [](ModelWriter& w) { w.add_sizevar("N", 3); };
  p.steps = 2;
  const fs::path in = fs::path(OPENINFER_SOURCE_DIR) / "tests/run/data/pipeline_input.txt";
  const Model m = Model::from_bytes(parse_oinf_text(read_text(in), in.string()).to_bytes());
  p.inputs = {{"x", m.tensor("x")}};
  p.fetch = {"y", "sq"};
  run_case(p);
}

// f64 (shaderFloat64): the C target's fixtures as they are. chain.oi over three steps (f32 and
// i32 chains, f64 add/mul; bit-exact but for f32 div's 2 ulp), matmul.oi (f64 batched with an
// epilogue), reduce.oi (f64 mean), conv.oi (a depthwise f64 conv), pool.oi (f64 avg/max) and
// norm.oi (f64 softmax and rms_norm); loops.oi and branch.oi bit-exact
// within ops-nn.md's tolerances: (1e-6, 1e-5) / (1e-5, 1e-4) for f32, (1e-12, 1e-10) for f64;
// cast.oi (rounding modes, saturation, f32 <-> f64 <-> i32) bit-exact.
BOOST_AUTO_TEST_CASE(f64_and_the_c_targets_fixtures) {
  Case chain = c_fixture("chain", "chain_model.txt", 3);
  chain.tolerance = false;
  chain.div_ulps = true;
  run_case(chain);
  run_case(c_fixture("matmul", "matmul_model.txt", 2));
  run_case(c_fixture("reduce", "reduce_model.txt", 2));
  run_case(c_fixture("conv", "conv_model.txt", 1));
  run_case(c_fixture("pool", "loops_model.txt", 1));
  run_case(c_fixture("norm", "norm_model.txt", 1));
  for (const char* control : {"loops", "branch"}) {  // host loops and branches: bit-exact
    Case c = c_fixture(control, "loops_model.txt", 2, "loops_input.txt");
    c.tolerance = false;
    run_case(c);
  }
  Case cast = c_fixture("cast", "cast_model.txt", 1);
  cast.tolerance = false;  // conversions round once: bit-exact
  run_case(cast);
}

// f64 moving data (8-byte words, bit-exact with -0.0, infinities, NaN and denormals), f64
// arithmetic with div masks and relu of infinities, and the f64 norms within (1e-12, 1e-10).
BOOST_AUTO_TEST_CASE(f64_movement_arithmetic_and_norms) {
  Case c;
  c.name = "f64_misc";
  c.source = R"(
dynamic { x: f64[3, 4]; idx: i32[2]; }
constant { s4: f64[4]; }
volatile {
  cat: f64[3, 8]; sl: f64[2, 2]; pr: f64[5, 6]; tp: f64[4, 3]; g: f64[3, 2]; io: f64[3, 4];
  q: f64[3, 4]; r: f64[3, 4]; ln: f64[3, 4]; rn: f64[3, 4];
}
block entry {
  op concat(x, x, axis=1) >> cat;
  op slice(x, starts=[-1, 3], ends=[-100, 0], steps=[-2, -2]) >> sl;
  op pad(x, pads=[1, 1, 1, 1], mode="reflect") >> pr;
  op transpose(x) >> tp;
  op gather(x, idx, axis=1) >> g;
  op iota(x, axis=0) >> io;
  op div(x, s4, div_by_zero_mask=-2.5) >> q;
  op neg(q) >> q;
  op relu(x) >> r;
  op add(r, q) >> r;
  op layer_norm(x, s4) >> ln;
  op rms_norm(x, s4, epsilon=0.001) >> rn;
  return cat, sl, pr, tp, g, io, q, r, ln, rn;
}
)";
  c.model = [](ModelWriter& w) {
    w.add_tensor("s4", Tensor::from(std::vector<double>{0.5, -0.0, 3.0, 1e-300}, {4}));
  };
  const std::vector<double> x = {1.0, -0.0, 2.5e-310, -1e300, 3.25,  -7.0,
                                 0.1, 2.0,  -4.5,     8.0,    -0.25, 1.0 / 3.0};
  std::vector<double> xi = x;
  xi[5] = -INFINITY;
  c.step_inputs = {
      {{"x", Tensor::from(x, {3, 4})}, {"idx", Tensor::from(std::vector<int32_t>{3, -4}, {2})}},
      {{"x", Tensor::from(xi, {3, 4})}, {"idx", Tensor::from(std::vector<int32_t>{-1, 2}, {2})}}};
  c.steps = 2;
  c.fetch = {"cat", "sl", "pr", "tp", "g", "io", "q", "r"};
  run_case(c);
  c.name = "f64_norms";
  c.step_inputs.resize(1);
  c.steps = 1;
  c.fetch = {"ln", "rn"};
  c.tolerance = true;
  run_case(c);
}

BOOST_AUTO_TEST_CASE(what_cannot_be_expressed_is_an_error) {
  auto sizes = [](ModelWriter& w) { w.add_sizevar("N", 8); };
  // What the own writers refuse runs through the Vulkan backend's kernels (floor, f16 softmax,
  // i8 add); where those refuse too, both reasons are named.
  for (const char* ok : {"dynamic { x: f32[N]; }\nvolatile { y: f32[N]; }\nblock entry {\n"
                         "  op floor(x) >> y;\n  return y;\n}\n",
                         "dynamic { x: f16[N]; }\nvolatile { y: f16[N]; }\nblock entry {\n"
                         "  op softmax(x) >> y;\n  return y;\n}\n",
                         "dynamic { x: i8[N]; }\nvolatile { y: i8[N]; }\nblock entry {\n"
                         "  op add(x, x) >> y;\n  return y;\n}\n"}) {
    const std::string none = emit_error(ok, sizes);
    BOOST_TEST(none.empty(), none);
  }
  // i64 arithmetic needs no shaderInt64 (emulated), so the generic description takes it.
  std::string e = emit_error(
      "dynamic { x: i64[N]; }\nvolatile { y: i64[N]; }\nblock entry {\n  op add(x, x) >> y;\n"
      "  return y;\n}\n",
      sizes, generic_vulkan());
  BOOST_TEST(e.empty(), e);
  const std::string ok_graph =
      "dynamic { x: f32[N]; }\nvolatile { y: f32[N]; }\nblock entry {\n  op add(x, x) >> y;\n"
      "  return y;\n}\n";
  e = emit_error(ok_graph, sizes, DeviceArch::for_target("c"));
  BOOST_TEST(e.find("needs a GPU device description") != std::string::npos, e);
  {  // without fp64 the f32 math is computed in f32; f64 values, their math included, are refused
    json::value d =
        json::parse(read_text(fs::path(OPENINFER_SOURCE_DIR) / "devices" / "lavapipe.json"));
    d.at("features").as_object()["fp64"] = false;
    const fs::path no_f64 = fs::path(TEST_WORK_DIR) / "no_fp64.json";
    fs::create_directories(no_f64.parent_path());
    std::ofstream(no_f64) << json::serialize(d);
    e = emit_error(
        "dynamic { x: f32[N]; }\nvolatile { y: f32[N]; }\nblock entry {\n  op exp(x) >> y;\n"
        "  op pow(y, x) >> y;\n  return y;\n}\n",
        sizes, DeviceArch::load(no_f64));
    BOOST_TEST(e.empty(), e);
    e = emit_error(
        "dynamic { x: f64[N]; }\nvolatile { y: f64[N]; }\nblock entry {\n  op exp(x) >> y;\n"
        "  return y;\n}\n",
        sizes, DeviceArch::load(no_f64));
    BOOST_TEST(e.find("f64 needs shaderFloat64, which the device 'llvmpipe (LLVM 15.0.6, 256 "
                      "bits)' does not offer (features.fp64 false)") != std::string::npos,
               e);
    e = emit_error(
        "dynamic { x: f64[N]; }\nvolatile { y: f64[N]; }\nblock entry {\n  op softmax(x) >> y;\n"
        "  return y;\n}\n",
        sizes, generic_vulkan());
    BOOST_TEST(e.find("(features.fp64 false)") != std::string::npos, e);
  }
  e = emit_error(ok_graph, sizes, lavapipe(), "../evil");
  BOOST_TEST(e.find("must be 1-64 characters") != std::string::npos, e);
  // The shaders' rank limit is a device key (docs/devices.md), named with its value.
  e = emit_error(
      "dynamic { x: f32[1, 1, 1, 1, 1, 1, 1, 2, 3]; }\nvolatile { y: f32[3, 2, 1, 1, 1, 1, 1, 1, "
      "1]; }\nblock entry {\n  op transpose(x) >> y;\n  return y;\n}\n",
      sizes);
  BOOST_TEST(e.find("op 'transpose' (line 4)") != std::string::npos, e);
  BOOST_TEST(e.find("tensors of rank above 8, which the device 'llvmpipe (LLVM 15.0.6, 256 "
                    "bits)' does not offer (limits.max_rank 8)") != std::string::npos,
             e);
  {  // a description asking for less: the key's value is the description's
    json::value d =
        json::parse(read_text(fs::path(OPENINFER_SOURCE_DIR) / "devices" / "lavapipe.json"));
    d.at("limits").as_object()["max_rank"] = 4;
    const fs::path small = fs::path(TEST_WORK_DIR) / "max_rank_4.json";
    fs::create_directories(small.parent_path());
    std::ofstream(small) << json::serialize(d);
    e = emit_error(
        "dynamic { x: f32[1, 1, 1, 1, 1, 1, 1, 2, 3]; }\nvolatile { y: f32[3, 2, 1, 1, 1, 1, 1, "
        "1, 1]; }\nblock entry {\n  op transpose(x) >> y;\n  return y;\n}\n",
        sizes, DeviceArch::load(small));
    BOOST_TEST(e.find("(limits.max_rank 4)") != std::string::npos, e);
    // below the shaders' 8, every kernel over a tensor past it, elementwise ones too
    e = emit_error(
        "dynamic { x: f32[1, 1, 1, 2, 3]; }\nvolatile { y: f32[1, 1, 1, 2, 3]; }\n"
        "block entry {\n  op add(x, x) >> y;\n  return y;\n}\n",
        sizes, DeviceArch::load(small));
    BOOST_TEST(e.find("op 'add' (line 4): tensors of rank above 4 ('x' of rank 5), which the "
                      "device 'llvmpipe (LLVM 15.0.6, 256 bits)' does not offer (limits.max_rank "
                      "4)") != std::string::npos,
               e);
    d.at("limits").as_object()["max_head_dim"] = 8;
    const fs::path narrow = fs::path(TEST_WORK_DIR) / "max_head_dim_8.json";
    std::ofstream(narrow) << json::serialize(d);
    const std::string attn =
        "dynamic { q: f32[1, 2, D]; }\nvolatile { a: f32[1, 2, D]; }\nblock entry {\n"
        "  op attention(q, q, q) >> a;\n  return a;\n}\n";
    e = emit_error(
        attn, [](ModelWriter& w) { w.add_sizevar("D", 8); }, DeviceArch::load(narrow));
    BOOST_TEST(e.empty(), e);  // a head dim of 8: within the limit
    e = emit_error(
        attn, [](ModelWriter& w) { w.add_sizevar("D", 16); }, DeviceArch::load(narrow));
    BOOST_TEST(e.find("op 'attention' (line 4): head dims above 8 (16), which the device "
                      "'llvmpipe (LLVM 15.0.6, 256 bits)' does not offer (limits.max_head_dim "
                      "8)") != std::string::npos,
               e);
  }
  // So is the shaders' element limit (32-bit sizes, indices and strides: 2^31 - 1 elements of
  // one tensor at most), and a description asking for less is refused by its value; nothing
  // is allocated to find out.
  const std::string two_to_31 =
      "dynamic { x: u8[2, 1073741824]; }\nvolatile { y: u8[1073741824, 2]; }\nblock entry {\n"
      "  op transpose(x) >> y;\n  return y;\n}\n";
  e = emit_error(two_to_31, sizes,
                 DeviceArch::load(fs::path(OPENINFER_SOURCE_DIR) / "devices" / "nvidia_h100.json"));
  BOOST_TEST(e.find("op 'transpose' (line 4): 'x' of 2147483648 elements, more than 2147483647, "
                    "which the device 'NVIDIA H100 80GB HBM3' does not offer "
                    "(limits.max_elements 2147483647)") != std::string::npos,
             e);
  {
    json::value d =
        json::parse(read_text(fs::path(OPENINFER_SOURCE_DIR) / "devices" / "lavapipe.json"));
    d.at("limits").as_object()["max_elements"] = 100;
    const fs::path small = fs::path(TEST_WORK_DIR) / "max_elements_100.json";
    fs::create_directories(small.parent_path());
    std::ofstream(small) << json::serialize(d);
    const DeviceArch arch = DeviceArch::load(small);
    BOOST_TEST(arch.limits.max_elements == 100u);
    e = emit_error(
        "dynamic { x: f32[10, 10]; }\nvolatile { y: f32[10, 10]; }\nblock entry {\n"
        "  op exp(x) >> y;\n  return y;\n}\n",
        sizes, arch);
    BOOST_TEST(e.empty(), e);  // 100 elements: within the limit
    e = emit_error(
        "dynamic { x: f32[10, 20]; }\nvolatile { y: f32[10, 20]; }\nblock entry {\n"
        "  op exp(x) >> y;\n  return y;\n}\n",
        sizes, arch);
    BOOST_TEST(e.find("op 'exp' (line 4): 'x' of 200 elements, more than 100, which the device "
                      "'llvmpipe (LLVM 15.0.6, 256 bits)' does not offer (limits.max_elements "
                      "100)") != std::string::npos,
               e);
    // a kernel of the Vulkan backend's shaders (movement) is held to it too
    e = emit_error(
        "dynamic { x: f32[10, 20]; }\nvolatile { y: f32[20, 10]; }\nblock entry {\n"
        "  op transpose(x) >> y;\n  return y;\n}\n",
        sizes, arch);
    BOOST_TEST(e.find("(limits.max_elements 100)") != std::string::npos, e);
  }
}

BOOST_AUTO_TEST_CASE(bad_plans_and_device_descriptions_are_errors) {
  ModelWriter mw;
  mw.add_sizevar("N", 8);
  const Model m = Model::from_bytes(mw.to_bytes(), "m.oinf");
  const Plan plan =
      Synthesizer(lavapipe())
          .synthesize(
              m,
              Graph::parse(
                  "dynamic { x: f32[N]; }\nblock entry {\n  op add(x, x) >> x;\n  return x;\n}\n",
                  "ok.oi"));
  auto error_of = [&](const std::string& plan_json, const std::string& device_json) {
    try {
      registry().emitter("glsl")->emit({plan_json, device_json, "model", "", {}});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string device = plan.device.to_json();
  std::string e = error_of("{not json", device);
  BOOST_TEST(e.find("the plan is not valid JSON") != std::string::npos, e);
  e = error_of(R"({"format": "openinfer-synth-plan", "version": 2})", device);
  BOOST_TEST(e.find("plan JSON version 2") != std::string::npos, e);
  e = error_of(plan.to_json(), R"({"device": {"type": "gpu", "name": "g"}})");
  BOOST_TEST(e.find("has no key 'limits'") != std::string::npos, e);
  e = error_of(
      plan.to_json(),
      R"({"device": {"type": "gpu", "name": "g"}, "limits": {"max_workgroup_size": [0, 1, 1]}})");
  BOOST_TEST(e.find("limits.max_workgroup_size") != std::string::npos, e);
  BOOST_TEST(error_of(plan.to_json(), device).empty());
}

// An op a kernel pack (a third-party plugin) adds has no Vulkan kernel: the one refusal of the
// backend's kernels left (open gap vulkan-kernel), naming where the op comes from. The plan of a
// core op alone in its kernel, renamed, stands for such a plan (the emitter sees only the name).
BOOST_AUTO_TEST_CASE(kernel_pack_ops_are_named) {
  ModelWriter mw;
  const Model m = Model::from_bytes(mw.to_bytes(), "m.oinf");
  const Plan plan = Synthesizer(lavapipe())
                        .synthesize(m, Graph::parse("dynamic { x: f32[4]; }\nvolatile { y: f32[4]; "
                                                    "}\nblock entry {\n  op softmax(x) >> y;\n"
                                                    "  return y;\n}\n",
                                                    "pack.oi"));
  std::string text = plan.to_json();
  for (size_t at = text.find("\"softmax\""); at != std::string::npos;
       at = text.find("\"softmax\"", at))
    text.replace(at, 9, "\"softplus\"");
  std::string e;
  try {
    registry().emitter("glsl")->emit({text, plan.device.to_json(), "model", "", {}});
  } catch (const Error& err) {
    e = err.what();
  }
  BOOST_TEST(e.find("op 'softplus' comes from a kernel pack") != std::string::npos, e);
  BOOST_TEST(e.find("(open gap vulkan-kernel)") != std::string::npos, e);
}

// An arena of one-byte alignment (a description's preferences.arena_alignment 1) puts the f32
// temporary u at byte 17, after the u8 t: the Vulkan backend's kernels address whole elements,
// so pad writes u and reshape reads it through scratch copies of its bytes, made by the
// backend's u8 reshape kernel (move.comp) before and after; no refusal. (The backend's kernels
// bind the whole arena: only an own kernel binding an arena value at its offset needs a device
// whose minStorageBufferOffsetAlignment divides it, which the host program checks.)
BOOST_AUTO_TEST_CASE(unaligned_arena_values_go_through_scratch_copies) {
  ModelWriter mw;
  const Model m = Model::from_bytes(mw.to_bytes(), "m.oinf");
  DeviceArch arch = lavapipe();
  arch.preferences.arena_alignment = 1;
  const Plan plan = Synthesizer(arch).synthesize(
      m, Graph::parse("dynamic { x: f32[2]; }\npersistent { b: u8[17] @init(3); }\n"
                      "volatile { y: f32[2, 2]; c: u8[34]; }\nblock entry {\n"
                      "  assign t: u8[17];\n  assign u: f32[4];\n  op add(b, b) >> t;\n"
                      "  op pad(x, pads=[1, 1]) >> u;\n  op reshape(u) >> y;\n"
                      "  op concat(t, b, axis=0) >> c;\n  return y, c;\n}\n",
                      "unaligned.oi"));
  std::string manifest;
  for (const auto& f : emit(plan, plan.to_json()))
    if (f.path == "manifest.json") manifest = f.data;
  const json::object root = json::parse(manifest).as_object();
  uint64_t offset = 0;
  for (const json::value& v : root.at("values").as_array())
    if (v.as_object().at("name").as_string() == "u")
      offset = v.as_object().at("offset").to_number<uint64_t>();
  BOOST_TEST(offset % 4 != 0);  // the case this covers
  std::vector<std::vector<std::string>> shaders;
  for (const json::value& k : root.at("kernels").as_array()) {
    shaders.emplace_back();
    if (const json::value* d = k.as_object().if_contains("dispatches"))
      for (const json::value& x : d->as_array())
        shaders.back().push_back(std::string(x.as_object().at("shader").as_string()));
  }
  const std::string move = "shaders/vulkan/move.comp";
  BOOST_TEST_REQUIRE(shaders.size() == 4u);
  // pad: u's bytes into scratch (acc= would read them), pad there, the bytes back into u.
  BOOST_TEST((shaders[1] == std::vector<std::string>{move, move, move}));
  // reshape: u's bytes into scratch, reshape from there.
  BOOST_TEST((shaders[2] == std::vector<std::string>{move, move}));
}

BOOST_AUTO_TEST_CASE(output_files) {
  ModelWriter mw;
  mw.add_sizevar("N", 8);
  const Model m = Model::from_bytes(mw.to_bytes(), "m.oinf");
  const Plan plan =
      Synthesizer(lavapipe())
          .synthesize(
              m, Graph::parse("dynamic { x: f32[N]; }\nvolatile { y: f32[N]; }\nblock entry {\n"
                              "  op add(x, x) >> y;\n  op mul(y, x) >> y;\n  return y;\n}\n",
                              "two.oi"));
  std::set<std::string> paths;
  std::string shader;
  for (const auto& f : emit(plan, plan.to_json())) {
    paths.insert(f.path);
    if (f.path == "shaders/kernel_0.comp") shader = f.data;
  }
  BOOST_TEST(
      (paths == std::set<std::string>{"CMakeLists.txt", "host/glsl_host.cpp", "host/oinf_io.hpp",
                                      "host/openinfer/broadcast.hpp", "host/shape_rules.hpp",
                                      "manifest.json", "shaders/kernel_0.comp"}));
  BOOST_TEST(shader.rfind("#version 450\n", 0) == 0);
  BOOST_TEST(shader.find("local_size_x = 256") != std::string::npos, shader);
  BOOST_TEST(shader.find("precise float") != std::string::npos);
}
