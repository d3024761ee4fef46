// The synthesizer's plan: fusion (and what splits a group), the dep and cache-write ordering,
// internal values, the memory plan (reuse, in place, peak against the unplanned sum), storage
// classes, the schedule of yield/await, and the JSON form. Expected byte counts are worked out
// by hand in the comments.
#define BOOST_TEST_MODULE synth_plan
#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/model.hpp"
#include "openinfer/synth.hpp"

using namespace oi;

namespace oi {
std::ostream& operator<<(std::ostream& os, Storage s) {
  return os << storage_name(s);
}
}  // namespace oi

namespace {

Model test_model() {
  ModelWriter w;
  w.add_sizevar("B", 4);
  w.add_sizevar("N", 256);
  w.add_sizevar("D", 3);
  w.add_declaration("W.0", DType::f32, {3, 3});
  w.add_declaration("W.1", DType::f32, {3, 3});
  return Model::from_bytes(w.to_bytes(), "m.oinf");
}

DeviceArch cpu(uint32_t max_ops = 16, bool fusion = true) {
  DeviceArch a = DeviceArch::for_target("c");
  a.preferences.max_kernel_ops = max_ops;
  a.preferences.prefer_fusion = fusion;
  return a;
}

Plan plan_of(const std::string& source, const DeviceArch& arch = cpu()) {
  static const Model model = test_model();
  return Synthesizer(arch).synthesize(model, Graph::parse(source, "t.oi"));
}

// "add mul | sub relu": each kernel's ops, kernels separated by " | ".
std::string groups(const Plan& p) {
  std::string s;
  for (const PlanKernel& k : p.kernels) {
    if (!s.empty()) s += " | ";
    for (size_t i = 0; i < k.ops.size(); ++i) s += (i ? " " : "") + k.ops[i]->op;
  }
  return s;
}

// Step kinds of a block: "kernel dep cache.write kernel return".
std::string steps(const Plan& p, const std::string& block = "entry") {
  std::string s;
  for (const Step& st : p.find_block(block)->steps)
    s += (s.empty() ? "" : " ") + std::string(step_kind_name(st.kind));
  return s;
}

const std::string kVec = "dynamic { x: f32[B]; }\nvolatile { y: f32[B]; z: f32[B]; }\n";

}  // namespace

BOOST_AUTO_TEST_CASE(minimal_example_fuses_into_one_kernel) {
  const Model model =
      Model::open(std::string(OPENINFER_SOURCE_DIR) + "/examples/minimal/model.oinf");
  const Graph graph =
      Graph::load(std::string(OPENINFER_SOURCE_DIR) + "/examples/minimal/minimal.oi");
  Plan p = Synthesizer::for_target("c").synthesize(model, graph);
  BOOST_TEST(groups(p) == "add mul");
  BOOST_TEST(p.kernels[0].kind == "elementwise");
  BOOST_TEST(p.kernels[0].internal == std::vector<std::string>{"t0"});
  BOOST_TEST(p.kernels[0].reads == (std::vector<std::string>{"x", "a", "y"}));
  BOOST_TEST(p.kernels[0].writes == std::vector<std::string>{"y"});
  BOOST_TEST(steps(p) == "kernel return");
  BOOST_TEST(p.find_value("x")->storage == Storage::Dynamic);
  BOOST_TEST(p.find_value("a")->storage == Storage::Step);
  BOOST_TEST(p.find_value("t0")->storage == Storage::Internal);
  // x, a, y: 16 f32 each = 64 B; t0 (64 B) lives in registers: peak 192, unplanned 256.
  BOOST_TEST(p.memory.arena_bytes == 0u);
  BOOST_TEST(p.memory.temporary_bytes == 64u);
  BOOST_TEST(p.memory.peak_bytes == 192u);
  BOOST_TEST(p.memory.unplanned_bytes == 256u);
}

BOOST_AUTO_TEST_CASE(barrier_splits_a_group) {
  const std::string body = R"(
block entry {
  op add(x, x) >> y;
  op mul(y, y) >> y;
  BARRIER
  op sub(y, x) >> z;
  op relu(z) >> z;
  return z;
}
)";
  auto with = [&](const std::string& b) {
    std::string s = kVec + body;
    return s.replace(s.find("BARRIER"), 7, b);
  };
  BOOST_TEST(groups(plan_of(with(""))) == "add mul sub relu");
  Plan p = plan_of(with("barrier;"));
  BOOST_TEST(groups(p) == "add mul | sub relu");
  BOOST_TEST(steps(p) == "kernel barrier kernel return");
  // Any non-op node ends a group the same way.
  BOOST_TEST(groups(plan_of(with("transfer y >> z;"))) == "add mul | sub relu");
}

BOOST_AUTO_TEST_CASE(max_kernel_ops_and_prefer_fusion) {
  std::string chain = kVec + "block entry {\n  op add(x, x) >> y;\n";
  for (const char* op : {"mul", "sub", "add", "mul", "sub", "add", "mul"})
    chain += std::string("  op ") + op + "(y, x) >> y;\n";
  chain += "  return y;\n}\n";
  BOOST_TEST(plan_of(chain).kernels.size() == 1u);
  Plan three = plan_of(chain, cpu(3));
  BOOST_TEST(groups(three) == "add mul sub | add mul sub | add mul");
  BOOST_TEST(plan_of(chain, cpu(16, false)).kernels.size() == 8u);
  BOOST_TEST(plan_of(chain, cpu(1)).kernels.size() == 8u);
}

BOOST_AUTO_TEST_CASE(broadcast_fuses_but_other_shapes_do_not) {
  const std::string src = R"(
dynamic { x: f32[B]; m: f32[D, B]; }
volatile { y: f32[D, B]; s: f32[D]; }
block entry {
  op add(m, x) >> y;
  op mul(y, m) >> y;
  op sum_axis(y, axes=[1]) >> s;
  op relu(s) >> s;
  op relu(y) >> y;
  return y;
}
)";
  Plan p = plan_of(src);
  // The reduction takes the relu of its output as an epilogue; relu(y) has another shape.
  BOOST_TEST(groups(p) == "add mul | sum_axis relu | relu");
  BOOST_TEST(p.kernels[0].shape == (Dims{3, 4}));
  BOOST_TEST(p.kernels[1].kind == "reduction");
  BOOST_TEST(p.kernels[1].shape == (Dims{3}));
}

BOOST_AUTO_TEST_CASE(matmul_epilogue_never_writes_the_heads_inputs) {
  const std::string src = R"(
volatile { a: f32[D, D]; b: f32[D, D]; c: f32[D, D]; }
block entry {
  op matmul(a, b) >> c;
  op relu(c) >> c;
  op add(c, a) >> c;
  op mul(c, c) >> a;
  return c;
}
)";
  Plan p = plan_of(src);
  BOOST_TEST(groups(p) == "matmul relu add | mul");
  BOOST_TEST(p.kernels[0].kind == "matmul");
}

BOOST_AUTO_TEST_CASE(dep_splits_a_group_and_keeps_a_cache_write_in_place) {
  const std::string head = kVec + "persistent { K: f32[B]; }\nblock entry {\n  assign t: f32[B];\n";
  const std::string tail = "  return y;\n}\n";
  // Without the dep add and mul are one kernel; with it, two.
  BOOST_TEST(groups(plan_of(head + "  op add(x, x) >> t;\n  op mul(t, t) >> y;\n" + tail)) ==
             "add mul");
  Plan split = plan_of(head + "  op add(x, x) >> t;\n  dep after(add) before(mul);\n" +
                       "  op mul(t, t) >> y;\n" + tail);
  BOOST_TEST(groups(split) == "add | mul");
  BOOST_TEST(split.constraints.size() == 1u);
  BOOST_TEST(split.find_value("t")->storage == Storage::Arena);  // read by a second kernel

  Plan p = plan_of(head + "  op add(x, x) >> t;\n  dep after(add) before(cache.write);\n" +
                   "  cache.write t >> K;\n  op mul(t, t) >> y;\n" + tail);
  BOOST_TEST(steps(p) == "kernel dep cache.write kernel return");
  const auto& s = p.find_block("entry")->steps;
  BOOST_REQUIRE(p.constraints.size() == 1u);
  BOOST_TEST(p.constraints[0].after == s[0].id);   // the kernel holding add
  BOOST_TEST(p.constraints[0].before == s[2].id);  // the cache.write, still before mul
  BOOST_TEST(p.constraints[0].reason == "dep after(add) before(cache.write)");
  BOOST_TEST(p.find_value("K")->storage == Storage::Persistent);
}

BOOST_AUTO_TEST_CASE(loops_branches_and_yields_bound_groups) {
  const std::string src = kVec + R"(persistent { flag: bool; }
block entry {
  op add(x, x) >> y;
  loop l (i in 0..3) {
    op mul(y, x) >> y;
    op add(y, x) >> y;
  }
  op sub(y, x) >> y;
  branch flag other skip;
  op relu(y) >> y;
  return y;
}
block other {
  op neg(y) >> y;
  op abs(y) >> y;
  return;
}
block skip {
  return;
}
)";
  Plan p = plan_of(src);
  BOOST_TEST(groups(p) == "add | mul add | sub | relu | neg abs");
  BOOST_TEST(steps(p) == "kernel loop kernel branch kernel return");
  BOOST_TEST(p.find_block("entry")->steps[1].body.size() == 1u);
  BOOST_TEST(p.find_block("other")->role == "branch");
}

BOOST_AUTO_TEST_CASE(yield_consumers_are_tasks_in_source_order) {
  const std::string src = R"(
dynamic { x: f32[B]; }
volatile { h: f32[B]; u: f32[B]; v: f32[B]; }
block entry {
  assign t: f32[B];
  op add(x, x) >> t;
  yield u, v;
  op relu(t) >> h;
  op add(h, t) >> h;
  await u, v;
  return h;
}
block c2 {
  await v;
  op neg(v) >> v;
  yield v;
}
block c1 {
  await u;
  op abs(u) >> u;
  yield u;
}
)";
  Plan p = plan_of(src);
  BOOST_TEST(steps(p) == "kernel yield kernel await return");
  BOOST_TEST(p.find_block("entry")->steps[1].tasks == (std::vector<std::string>{"c2", "c1"}));
  BOOST_TEST(p.find_block("c1")->role == "consumer");
  BOOST_TEST(groups(p) == "add | relu add | neg | abs");
  const PlanValue* t = p.find_value("t");
  BOOST_TEST(t->storage == Storage::Arena);
  BOOST_TEST(t->live_first == 0);
  BOOST_TEST(t->live_last == 2);
  BOOST_TEST(!t->zero_fill);  // written whole by its first kernel
}

BOOST_AUTO_TEST_CASE(memory_plan_reuses_offsets) {
  // N = 256 f32: every value is 1024 B. Positions: 0 add, 1 barrier, 2 OP2, 3 barrier, 4 OP3,
  // 5 barrier, 6 relu, 7 return. t1 lives [0,2], t2 [2,4], t3 [4,6].
  auto graph = [](const std::string& op, const std::string& args = "") {
    return "dynamic { x: f32[N]; }\nvolatile { y: f32[N]; }\nblock entry {\n"
           "  assign t1: f32[N];\n  assign t2: f32[N];\n  assign t3: f32[N];\n"
           "  op add(x, x) >> t1;\n  barrier;\n  op " +
           op + "(t1" + args +
           ") >> t2;\n  barrier;\n"
           "  op " +
           op + "(t2" + args + ") >> t3;\n  barrier;\n  op relu(t3) >> y;\n  return y;\n}\n";
  };
  // cast may not run in place: t3 takes t1's bytes (disjoint lives), t2 its own: 2048 B.
  Plan p = plan_of(graph("cast", ", to=f32"));
  BOOST_TEST(p.find_value("t1")->live_first == 0);
  BOOST_TEST(p.find_value("t1")->live_last == 2);
  BOOST_TEST(p.find_value("t3")->live_first == 4);
  BOOST_TEST(p.find_value("t1")->offset == p.find_value("t3")->offset);
  BOOST_TEST(p.find_value("t1")->offset != p.find_value("t2")->offset);
  BOOST_TEST(p.memory.arena_bytes == 2048u);
  BOOST_TEST(p.memory.temporary_bytes == 3072u);
  BOOST_TEST(p.memory.peak_bytes == 1024u + 1024u + 2048u);  // x, y, arena
  BOOST_TEST(p.memory.unplanned_bytes == 1024u + 1024u + 3072u);
  // neg may: each output takes the bytes of the input that dies in its kernel: 1024 B.
  Plan q = plan_of(graph("neg"));
  BOOST_TEST(*q.find_value("t2")->shares == "t1");
  BOOST_TEST(*q.find_value("t3")->shares == "t2");
  BOOST_TEST(q.memory.arena_bytes == 1024u);
  BOOST_TEST(q.memory.peak_bytes == 3072u);
}

BOOST_AUTO_TEST_CASE(read_before_write_temporaries_are_zero_filled) {
  const std::string src = kVec + R"(block entry {
  assign acc: f32[B];
  loop l (i in 0..3) {
    op add(acc, x) >> acc;
  }
  op relu(acc) >> y;
  return y;
}
)";
  Plan p = plan_of(src);
  BOOST_TEST(p.find_value("acc")->zero_fill);
  BOOST_TEST(p.find_value("acc")->storage == Storage::Arena);
}

BOOST_AUTO_TEST_CASE(storage_classes_and_run_time_sizes) {
  const std::string src = R"(
constant { W(l): f32[D, D]; }
persistent {
  step: i32 @init(0);
  K(t): f32[D] @table;
  F(t): f32[D] @table @fixed(t=8);
  M(i, j): f32[D, D] @auto_dim(i, j);
}
volatile { h: f32[D, D]; }
block entry {
  loop l (i in 0..2) {
    op add(h, W[i]) >> h;
  }
  cache.increment step;
  return h;
}
)";
  Plan p = plan_of(src);
  const PlanValue* w = p.find_value("W");
  BOOST_TEST(w->storage == Storage::Constant);
  BOOST_TEST(w->entries == 2u);      // W.0 and W.1 in the model
  BOOST_TEST(w->bytes == 2u * 36u);  // f32[3, 3] each
  BOOST_TEST(p.find_value("K")->storage == Storage::Runtime);
  BOOST_TEST(p.find_value("K")->bytes == 12u);  // one entry
  BOOST_TEST(p.find_value("F")->storage == Storage::Persistent);
  BOOST_TEST(p.find_value("F")->bytes == 8u * 12u);
  BOOST_TEST(p.find_value("M")->storage == Storage::Runtime);
  BOOST_TEST(p.memory.persistent_bytes == 4u + 96u);
  BOOST_TEST(p.memory.runtime_sized == (std::vector<std::string>{"K", "M"}));
  BOOST_TEST(p.kernels.size() == 1u);
}

BOOST_AUTO_TEST_CASE(prefix_table_pattern_is_in_the_json_form) {
  const std::string src = R"(
constant { W(l): f32[D, D] @pattern("W.{l}"); }
volatile { h: f32[D, D]; }
block entry {
  op add(W[0], W[1]) >> h;
  return h;
}
)";
  auto root = boost::json::parse(plan_of(src).to_json()).as_object();
  const auto& values = root.at("values").as_array();
  BOOST_TEST(values[0].at("pattern").as_string() == "W.{l}");  // emitters name each entry
  BOOST_TEST(values[0].at("entries").as_int64() == 2);
  BOOST_TEST(!values[1].as_object().contains("pattern"));
}

BOOST_AUTO_TEST_CASE(json_form_gives_source_positions_of_table_accesses) {
  const std::string src = R"(persistent { n: i32; K(t): f32[D] @table @fixed(t=4); }
volatile { h: f32[D]; w: f32[2, D]; }
block entry {
  cache.write h >> K[n];
  op relu(h) >> K[n+1];
  cache.read K[0..2] >> w;
  cache.reset K[n];
  return h;
}
)";
  auto root = boost::json::parse(plan_of(src).to_json()).as_object();
  const auto& steps = root.at("blocks").at(0).at("steps").as_array();
  // The simulator's run-time messages name the access's position: emitters give the same.
  BOOST_TEST(steps[0].at("kind").as_string() == "cache.write");
  BOOST_TEST(steps[0].at("at").as_string() == "t.oi:4:3");
  BOOST_TEST(steps[0].at("to_at").as_string() == "t.oi:4:20");
  const auto& op = root.at("kernels").at(0).at("ops").at(0);
  BOOST_TEST(op.at("output").as_string() == "K[n+1]");
  BOOST_TEST(op.at("at").as_string() == "t.oi:5:3");
  BOOST_TEST(op.at("inputs_at").at(0).as_string() == "t.oi:5:11");
  BOOST_TEST(op.at("output_at").as_string() == "t.oi:5:17");
  BOOST_TEST(steps[2].at("from_at").as_string() == "t.oi:6:14");
  BOOST_TEST(steps[3].at("target_at").as_string() == "t.oi:7:15");
  // The accesses, structured: K[n+1] and K[0..2].
  BOOST_TEST(boost::json::serialize(op.at("output_access")) ==
             R"({"name":"K","slots":[{"kind":"index","index":{"name":"n","offset":1}}]})");
  BOOST_TEST(boost::json::serialize(steps[2].at("from_access")) ==
             R"({"name":"K","slots":[{"kind":"range","start":{"value":0},"end":{"value":2}}]})");
  BOOST_TEST(!op.as_object().contains("inputs_access"));  // relu(h): no indexed input
}

BOOST_AUTO_TEST_CASE(json_form_gives_each_ops_catalog_shape_rule) {
  const std::string src =
      R"(volatile { a: f32[2, 3]; b: f32[3]; c: f32[2, 3]; s: f32[2]; t: f32[3, 2];
           m: f32[2, 2]; }
block entry {
  op add(a, b) >> c;
  barrier;
  op relu(c) >> c;
  barrier;
  op sum_axis(c, axes=[1]) >> s;
  barrier;
  op transpose(a, perm=[1, 0]) >> t;
  barrier;
  op matmul(a, t) >> m;
  return m;
}
)";
  auto root = boost::json::parse(plan_of(src).to_json()).as_object();
  // (rule, broadcast) per op in kernel order, as op_catalog.json and ops.md define them.
  std::vector<std::pair<std::string, bool>> rules;
  for (const auto& k : root.at("kernels").as_array())
    for (const auto& op : k.at("ops").as_array())
      rules.emplace_back(op.at("shape_rule").as_string(), op.at("broadcast").as_bool());
  const std::vector<std::pair<std::string, bool>> expected{{"broadcast", true},
                                                           {"broadcast", false},
                                                           {"reduce_axes", false},
                                                           {"transpose", false},
                                                           {"matmul", true}};
  BOOST_TEST((rules == expected));
}

BOOST_AUTO_TEST_CASE(prefix_table_entries_fuse_growable_table_entries_do_not) {
  const std::string src = R"(
constant { W(l): f32[D, D]; }
persistent { K(t): f32[D, D] @table; }
volatile { h: f32[D, D]; g: f32[D, D]; }
block entry {
  loop l (i in 0..2) {
    op matmul(h, W[i]) >> g;
    op add(g, W[i]) >> g;
    op relu(g) >> g;
    cache.write g >> K[i];
    op add(h, K[i]) >> h;
    op relu(h) >> h;
  }
  return h;
}
)";
  Plan p = plan_of(src);
  // W[i] is one fixed array; K[i] lives in a table sized at run time, so its op stays alone.
  BOOST_TEST(groups(p) == "matmul add relu | add | relu");
  BOOST_TEST(p.kernels[0].reads == (std::vector<std::string>{"h", "W"}));
}

BOOST_AUTO_TEST_CASE(invalid_graphs_are_refused_with_the_validator_messages) {
  try {
    plan_of(kVec + "block entry {\n  op add(x, q) >> y;\n  return y;\n}\n");
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Input));
    BOOST_TEST(std::string(e.what()).find("does not validate") != std::string::npos);
    BOOST_TEST(e.context().find("'q'") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(json_form_is_versioned_and_deterministic) {
  const std::string src = kVec +
                          "block entry {\n  op add(x, x) >> y;\n  op mul(y, x) >> z;\n"
                          "  barrier;\n  return z;\n}\n";
  Plan p = plan_of(src);
  const std::string text = p.to_json();
  BOOST_TEST(text == plan_of(src).to_json());
  auto root = boost::json::parse(text).as_object();
  BOOST_TEST(root.at("format").as_string() == "openinfer-synth-plan");
  BOOST_TEST(root.at("version").as_int64() == kSynthPlanVersion);
  BOOST_TEST(root.at("kernels").as_array().size() == 1u);
  const auto& k = root.at("kernels").as_array()[0].as_object();
  BOOST_TEST(k.at("ops").as_array().size() == 2u);
  BOOST_TEST(k.at("ops").as_array()[1].as_object().at("output").as_string() == "z");
  BOOST_TEST(root.at("blocks").as_array()[0].as_object().at("steps").as_array().size() == 3u);
  BOOST_TEST(root.at("memory").as_object().at("peak_bytes").as_int64() == 48);
  BOOST_TEST(p.report().find("k0 elementwise [4]: add mul") != std::string::npos);
}

// The plan's `device` carries a CPU's caches and SIMD features (from the description's
// `memory` and `cpu` sections) for the C emitter's matmul; a GPU's plan has neither.
BOOST_AUTO_TEST_CASE(json_form_describes_a_cpu_device) {
  const std::string src = kVec + "block entry {\n  op add(x, x) >> y;\n  return y;\n}\n";
  const std::string devices = std::string(OPENINFER_SOURCE_DIR) + "/devices/";
  auto device_of = [&](const DeviceArch& arch) {
    return boost::json::parse(plan_of(src, arch).to_json()).as_object().at("device").as_object();
  };
  const auto avx512 = device_of(DeviceArch::load(devices + "x86_64_avx512.json"));
  BOOST_TEST(avx512.at("name").as_string() == "x86-64 AVX-512 (x86-64-v4)");  // kept as it was
  BOOST_TEST(avx512.at("builtin").as_bool() == false);
  const auto& memory = avx512.at("memory").as_object();
  BOOST_TEST(memory.at("l1d_bytes").to_number<uint64_t>() == 49152u);
  BOOST_TEST(memory.at("l2_bytes").to_number<uint64_t>() == 2097152u);
  BOOST_TEST(memory.at("l3_bytes").to_number<uint64_t>() == 33554432u);
  const auto& cpu_part = avx512.at("cpu").as_object();
  BOOST_TEST(cpu_part.at("isa").as_string() == "x86-64");
  BOOST_TEST(cpu_part.at("vector_bits").to_number<uint64_t>() == 512u);
  const auto& simd = cpu_part.at("simd").as_array();
  BOOST_TEST(simd.size() == 10u);
  BOOST_TEST((std::find(simd.begin(), simd.end(), boost::json::value("avx512f")) != simd.end()));

  const auto builtin = device_of(DeviceArch::for_target("c"));
  BOOST_TEST(builtin.at("builtin").as_bool() == true);
  BOOST_TEST(builtin.at("memory").as_object().at("l1d_bytes").to_number<uint64_t>() == 32768u);

  for (const char* gpu : {"lavapipe.json", "nvidia_h100.json"}) {
    const auto d = device_of(DeviceArch::load(devices + gpu));
    BOOST_TEST(d.at("type").as_string() == "gpu");
    BOOST_TEST(!d.contains("cpu"));
    BOOST_TEST(!d.contains("memory"));
    BOOST_TEST(!d.contains("builtin"));
  }
  BOOST_TEST(!device_of(DeviceArch::for_target("glsl")).contains("cpu"));
}

BOOST_AUTO_TEST_CASE(memory_plan_reuses_inside_a_loop_body) {
  // All four temporaries live at entry position 0 (the loop), yet inside the body a dies at the
  // second cast and c starts at the third: they share bytes. acc is read before it is written
  // in the body (carried between iterations): zeroed at the step's start and held over the
  // whole loop, it shares with nobody. Every value 1024 B.
  Plan p = plan_of(R"(
dynamic { x: f32[N]; }
volatile { y: f32[N]; }
block entry {
  assign a: f32[N];
  assign b: f32[N];
  assign c: f32[N];
  assign acc: f32[N];
  loop steps (i in 0..3) {
    op cast(x, to=f32) >> a;
    barrier;
    op cast(a, to=f32) >> b;
    barrier;
    op cast(b, to=f32) >> c;
    barrier;
    op add(acc, c) >> acc;
  }
  op relu(acc) >> y;
  return y;
}
)");
  const PlanValue *a = p.find_value("a"), *b = p.find_value("b"), *c = p.find_value("c"),
                  *acc = p.find_value("acc");
  BOOST_TEST(a->live_first == 0);
  BOOST_TEST(c->live_last == 0);
  BOOST_TEST(a->offset == c->offset);
  BOOST_TEST(b->offset != a->offset);
  BOOST_TEST(acc->zero_fill);
  BOOST_TEST(!a->zero_fill);
  for (const PlanValue* v : {a, b, c}) BOOST_TEST(acc->offset != v->offset);
  BOOST_TEST(acc->live_ranges.size() == 1u);
  BOOST_TEST(acc->live_ranges.front().first == 0);  // from the step's start
  BOOST_TEST(p.memory.arena_bytes == 3072u);
  BOOST_TEST(p.memory.temporary_bytes == 4096u);
}

BOOST_AUTO_TEST_CASE(memory_plan_shares_between_branch_alternatives) {
  // p lives only in `left`, q only in `right`: a step runs one of them, so they share bytes.
  Plan p = plan_of(R"(
dynamic {
  x: f32[N];
  flag: bool;
}
volatile { y: f32[N]; }
block entry {
  assign p: f32[N];
  assign q: f32[N];
  branch flag left right;
  return y;
}
block left {
  op cast(x, to=f32) >> p;
  barrier;
  op relu(p) >> y;
  return;
}
block right {
  op cast(x, to=f32) >> q;
  barrier;
  op neg(q) >> y;
  return;
}
)");
  BOOST_TEST(p.find_value("p")->offset == p.find_value("q")->offset);
  BOOST_TEST(p.memory.arena_bytes == 1024u);
  BOOST_TEST(!p.find_value("p")->zero_fill);
}

// The repository's example graphs plan, and the arena is sound: two temporaries live at the
// same trace position never share a byte unless they are an in-place pair at one offset.
BOOST_AUTO_TEST_CASE(example_graphs_plan_with_a_sound_arena) {
  const std::string root = OPENINFER_SOURCE_DIR;
  const std::pair<std::string, std::string> cases[] = {
      {"/examples/minimal/minimal.oi", "/examples/minimal/model.oinf"},
      {"/examples/gpt/gpt.oi", "/tests/gpt/fixtures/tiny_model.oinf"},
  };
  for (const auto& [graph, model] : cases) {
    BOOST_TEST_CONTEXT(graph) {
      Plan p = Synthesizer::for_target("c").synthesize(Model::open(root + model),
                                                       Graph::load(root + graph));
      BOOST_TEST(p.memory.arena_bytes <= p.memory.temporary_bytes);
      BOOST_TEST(p.memory.peak_bytes <= p.memory.unplanned_bytes);
      for (const PlanValue& a : p.values)
        for (const PlanValue& b : p.values) {
          if (&a == &b || a.storage != Storage::Arena || b.storage != Storage::Arena) continue;
          bool live = false;  // some trace position holds both
          for (const auto& [a0, a1] : a.live_ranges)
            for (const auto& [b0, b1] : b.live_ranges) live = live || (a0 <= b1 && b0 <= a1);
          const bool bytes = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
          const bool pair = (a.shares == b.name || b.shares == a.name) && a.offset == b.offset;
          BOOST_TEST(!(live && bytes && !pair), a.name << " and " << b.name << " collide");
        }
    }
  }
}
