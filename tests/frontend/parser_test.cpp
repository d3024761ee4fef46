// The parser builds the IR described in graph.hpp; every expected value is read off the DSL
// text by hand.
#define BOOST_TEST_MODULE frontend_parser
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <ctime>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"

#if defined(__has_feature)
#define OI_HAS_ASAN __has_feature(address_sanitizer)
#else
#define OI_HAS_ASAN 0
#endif

using namespace oi;

static double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

BOOST_AUTO_TEST_CASE(raw_string_literal_like_the_seeds_graph_macro) {
  Graph g = Graph::parse(R"(
    dynamic { x: f32[B]; }
    volatile { a: f32[B]; y: f32[B] @init(5.0); }
    block entry {
      assign t0: f32[B];
      op add(x, a) >> t0;
      op mul(y, t0) >> y;
      return;
    }
  )");
  BOOST_TEST(g.origin == "<string>");
  BOOST_TEST(g.decls.size() == 3u);
  BOOST_TEST((g.decls[0].memory == MemoryKind::Dynamic));
  BOOST_TEST((g.decls[2].init == Value::floating(5.0)));
  BOOST_TEST(g.decls[2].dims.size() == 1u);
  BOOST_TEST(g.decls[2].dims[0].factors[0].sizevar == "B");
  const Block& entry = *g.find_block("entry");
  BOOST_TEST(entry.nodes.size() == 4u);
  BOOST_TEST((entry.nodes[0].kind == NodeKind::Assign));
  BOOST_TEST(entry.nodes[0].var == "t0");
  BOOST_TEST(entry.nodes[1].op == "add");
  BOOST_TEST(entry.nodes[1].inputs.size() == 2u);
  BOOST_TEST(entry.nodes[1].inputs[1].name == "a");
  BOOST_TEST(entry.nodes[1].output.name == "t0");
  BOOST_TEST((entry.nodes[3].kind == NodeKind::Return));
  BOOST_TEST(entry.nodes[1].loc.line == 6u);
  BOOST_TEST(entry.nodes[1].loc.col == 7u);
  BOOST_TEST(entry.nodes[1].loc.to_string() == "<string>:6:7");
  BOOST_TEST(g.find_decl("a") == &g.decls[1]);
  BOOST_TEST(g.find_decl("nope") == nullptr);
  BOOST_TEST(g.find_block("nope") == nullptr);
}

BOOST_AUTO_TEST_CASE(declarations_with_every_attribute) {
  Graph g = Graph::parse(R"(
    constant { QKV(layer, head): f16[D, 3*D] @pattern("attn.{head}.qkv.{layer}") @ref("x"); }
    persistent {
      K(l, t): f16[H, Dh] @table @fixed(l=24, t=Tmax);
      M(i, j): f16[D, H] @auto_dim(i, j) @init(-2) @layout("nhwc", 3, -1.5, true) @hot;
    }
    block entry { return; }
  )");
  const VarDecl& qkv = g.decls[0];
  BOOST_TEST(qkv.indices == (std::vector<std::string>{"layer", "head"}),
             boost::test_tools::per_element());
  BOOST_TEST(qkv.dims[1].factors.size() == 2u);
  BOOST_TEST(qkv.dims[1].factors[0].value == 3);
  BOOST_TEST(qkv.dims[1].factors[1].sizevar == "D");
  BOOST_TEST(*qkv.pattern == "attn.{head}.qkv.{layer}");
  BOOST_TEST(*qkv.ref == "x");
  const VarDecl& k = g.decls[1];
  BOOST_TEST(k.table);
  BOOST_TEST(k.fixed.size() == 2u);
  BOOST_TEST(k.fixed[0].index == "l");
  BOOST_TEST(k.fixed[0].bound.value == 24);
  BOOST_TEST(k.fixed[1].bound.name == "Tmax");
  const VarDecl& m = g.decls[2];
  BOOST_TEST(m.auto_dim == (std::vector<std::string>{"i", "j"}), boost::test_tools::per_element());
  BOOST_TEST((*m.init == Value::integer(-2)));
  BOOST_TEST(m.other_attributes.size() == 2u);
  const Attribute& layout = m.other_attributes[0];
  BOOST_TEST(layout.name == "layout");
  BOOST_TEST(layout.args.size() == 4u);
  BOOST_TEST((layout.args[0] == Value::string("nhwc")));
  BOOST_TEST((layout.args[1] == Value::integer(3)));
  BOOST_TEST((layout.args[2] == Value::floating(-1.5)));
  BOOST_TEST((layout.args[3] == Value::boolean(true)));
  BOOST_TEST(m.other_attributes[1].args.empty());
  std::vector<Diagnostic> warnings = g.warnings();
  BOOST_TEST(warnings.size() == 2u);
  BOOST_TEST(warnings[0].message.find("@layout") != std::string::npos);
  BOOST_TEST(warnings[0].loc.line == 5u);
}

BOOST_AUTO_TEST_CASE(scalars_strings_and_numbers) {
  Graph g = Graph::parse(R"(
    constant {
      a: f32;  b: f32[];  c: f32 @init(1e-6);  d: f64 @init(2.5E+3);  e: f32 @init(-inf);
      f: i64 @init(-9223372036854775808);  g: u64 @init(9223372036854775807);
      s: i8 @doc("a \"q\" \\ b\n");  t: bool @init(false);
    }
    block entry { return; }
  )");
  BOOST_TEST(g.decls[0].dims.empty());
  BOOST_TEST(g.decls[1].dims.empty());
  BOOST_TEST(g.decls[2].init->float_value == 1e-6);
  BOOST_TEST(g.decls[3].init->float_value == 2500.0);
  BOOST_TEST(std::isinf(g.decls[4].init->float_value));
  BOOST_TEST(g.decls[4].init->float_value < 0);
  BOOST_TEST(g.decls[5].init->int_value == INT64_MIN);
  BOOST_TEST(g.decls[6].init->int_value == INT64_MAX);
  BOOST_TEST(g.decls[7].other_attributes[0].args[0].text == "a \"q\" \\ b\n");
  BOOST_TEST((*g.decls[8].init == Value::boolean(false)));
}

BOOST_AUTO_TEST_CASE(op_inputs_and_settings_of_every_kind) {
  Graph g = Graph::parse(R"(block entry {
    op f(x, W[l], K[l, t-1], K[2, t+3], K[-1], a=1, b=-2.5, c=inf, d=-inf, e=true, f="reflect",
         g=f16, h=slope, i=[0, -1, 2], j=[]) >> y;
    op g() >> K[l, 0..H, pos];
    return;
  })");
  const Node& op = g.blocks[0].nodes[0];
  BOOST_TEST(op.inputs.size() == 5u);
  BOOST_TEST(op.inputs[1].indices[0].name == "l");
  BOOST_TEST(op.inputs[2].indices[1].name == "t");
  BOOST_TEST(op.inputs[2].indices[1].offset == -1);
  BOOST_TEST(op.inputs[3].indices[0].is_literal());
  BOOST_TEST(op.inputs[3].indices[0].offset == 2);
  BOOST_TEST(op.inputs[3].indices[1].offset == 3);
  BOOST_TEST(op.inputs[4].indices[0].offset == -1);
  BOOST_TEST(op.settings.size() == 10u);
  BOOST_TEST((op.settings[0].value == Value::integer(1)));
  BOOST_TEST((op.settings[1].value == Value::floating(-2.5)));
  BOOST_TEST((op.settings[2].value == Value::floating(INFINITY)));
  BOOST_TEST((op.settings[3].value == Value::floating(-INFINITY)));
  BOOST_TEST((op.settings[4].value == Value::boolean(true)));
  BOOST_TEST((op.settings[5].value == Value::string("reflect")));
  BOOST_TEST((op.settings[6].value == Value::dtype_name(DType::f16)));
  BOOST_TEST((op.settings[7].value == Value::ident("slope")));
  BOOST_TEST((op.settings[8].value == Value::int_list({0, -1, 2})));
  BOOST_TEST((op.settings[9].value == Value::int_list({})));
  BOOST_TEST(op.settings[9].name == "j");
  const Node& slice_out = g.blocks[0].nodes[1];
  BOOST_TEST(slice_out.inputs.empty());
  BOOST_TEST(slice_out.output.slots.size() == 3u);
  BOOST_TEST((slice_out.output.slots[1].kind == Slot::Kind::Range));
  BOOST_TEST(slice_out.output.slots[1].start->offset == 0);
  BOOST_TEST(slice_out.output.slots[1].end->name == "H");
  BOOST_TEST(!slice_out.output.is_plain_ref());
}

BOOST_AUTO_TEST_CASE(cache_operations_and_slices) {
  Graph g = Graph::parse(R"(block entry {
    cache.read K[l, 0..-3] >> w;
    cache.read K[] >> w;
    cache.read M[0..r, ] >> w;
    cache.read M[, 3] >> w;
    cache.read K[..4, 2..] >> w;
    cache.write v >> V[l, step];
    cache.increment step;  cache.increment 5 step;  cache.decrement 2 step;
    cache.reset K;  cache.reset K[l];
    return;
  })");
  const std::vector<Node>& n = g.blocks[0].nodes;
  BOOST_TEST((n[0].kind == NodeKind::CacheRead));
  BOOST_TEST(n[0].target.slots[1].start->offset == 0);
  BOOST_TEST(n[0].target.slots[1].end->offset == -3);
  BOOST_TEST(n[0].output.name == "w");
  BOOST_TEST(n[1].target.has_brackets);
  BOOST_TEST(n[1].target.slots.empty());
  BOOST_TEST((n[2].target.slots[1].kind == Slot::Kind::All));
  BOOST_TEST((n[3].target.slots[0].kind == Slot::Kind::All));
  BOOST_TEST((n[3].target.slots[1].kind == Slot::Kind::Index));
  BOOST_TEST(!n[4].target.slots[0].start.has_value());
  BOOST_TEST(n[4].target.slots[0].end->offset == 4);
  BOOST_TEST(!n[4].target.slots[1].end.has_value());
  BOOST_TEST((n[5].kind == NodeKind::CacheWrite));
  BOOST_TEST(n[5].inputs[0].name == "v");
  BOOST_TEST(n[5].target.slots[1].index.name == "step");
  BOOST_TEST((n[6].kind == NodeKind::CacheIncrement));
  BOOST_TEST(n[6].amount == 1);
  BOOST_TEST(n[7].amount == 5);
  BOOST_TEST((n[8].kind == NodeKind::CacheDecrement));
  BOOST_TEST(n[8].amount == 2);
  BOOST_TEST(n[8].var == "step");
  BOOST_TEST(!n[9].target.has_brackets);
  BOOST_TEST(n[10].target.slots.size() == 1u);
}

BOOST_AUTO_TEST_CASE(control_flow_and_concurrency) {
  Graph g = Graph::parse(R"(
    persistent { cache: f32; after: f32; before: f32; }
    block entry {
      loop layers (l in 0..num_layers) { loop inner (j in l..4) { barrier; } op relu(cache) >> after; }
      branch cond yes no;
      branch other;
      dep after(matmul) before(cache.write);
      dep after(transfer) before(relu);
      yield a, b, c;
      await a, b, c;
      return y, z;
    }
    block other { await a; yield a; }
  )");
  const std::vector<Node>& n = g.blocks[0].nodes;
  BOOST_TEST(n[0].loop_name == "layers");
  BOOST_TEST(n[0].var == "l");
  BOOST_TEST(n[0].start.value == 0);
  BOOST_TEST(n[0].end.name == "num_layers");
  BOOST_TEST(n[0].body.size() == 2u);
  BOOST_TEST(n[0].body[0].start.name == "l");
  BOOST_TEST(n[0].body[0].end.value == 4);
  BOOST_TEST(n[0].body[1].inputs[0].name == "cache");
  BOOST_TEST(n[1].cond == "cond");
  BOOST_TEST(n[1].then_block == "yes");
  BOOST_TEST(n[1].else_block == "no");
  BOOST_TEST(n[2].cond.empty());
  BOOST_TEST(n[2].then_block == "other");
  BOOST_TEST(n[3].dep_after == "matmul");
  BOOST_TEST(n[3].dep_before == "cache.write");
  BOOST_TEST(n[4].dep_after == "transfer");
  BOOST_TEST(n[5].names == (std::vector<std::string>{"a", "b", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST((n[6].kind == NodeKind::Await));
  BOOST_TEST(n[7].names.size() == 2u);
  // entry: loop, loop, barrier, relu, branch, branch, dep, dep, yield, await, return = 11.
  BOOST_TEST(g.node_count() == 13u);
}

BOOST_AUTO_TEST_CASE(node_indices_number_loop_bodies_on_and_uuids_are_stable) {
  const char* text = R"(block entry {
    assign t: f32;
    loop a (i in 0..2) { barrier; loop b (j in 0..2) { barrier; } }
    return;
  }
  block other { return; })";
  Graph g = Graph::parse(text);
  const std::vector<Node>& n = g.blocks[0].nodes;
  BOOST_TEST(n[0].index == 0u);
  BOOST_TEST(n[1].index == 1u);
  BOOST_TEST(n[1].body[0].index == 2u);
  BOOST_TEST(n[1].body[1].index == 3u);
  BOOST_TEST(n[1].body[1].body[0].index == 4u);
  BOOST_TEST(n[2].index == 5u);
  BOOST_TEST(g.blocks[1].nodes[0].index == 0u);
  BOOST_TEST(n[1].body[1].body[0].uuid == node_uuid("entry", "1/1/0"));
  Graph again = Graph::parse(text, "other.oi");
  BOOST_TEST(again.blocks[0].nodes[2].uuid == n[2].uuid);
  BOOST_TEST(n[0].uuid != g.blocks[1].nodes[0].uuid);
  std::vector<size_t> depths;
  for_each_node(g.blocks[0].nodes, [&](const Node&, size_t depth) { depths.push_back(depth); });
  BOOST_TEST(depths == (std::vector<size_t>{0, 0, 1, 1, 2, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(comments_and_keyword_like_names) {
  Graph g = Graph::parse(
      "// line\n/* block\n comment */ persistent { cache: f32; } /**/ block entry { // x\n"
      "cache.increment cache; /* inline */ return; }");
  BOOST_TEST(g.blocks[0].nodes[0].var == "cache");
  BOOST_TEST(g.blocks[0].nodes[0].loc.line == 4u);
}

BOOST_AUTO_TEST_CASE(ten_thousand_nodes_parse_quickly) {
  std::string text = "dynamic { x: f32[B, D]; }\nblock entry {\n";
  for (int i = 0; i < 10000; ++i) text += "  op add(x, W[l], alpha=0.5) >> x;\n";
  text += "}\n";
  // CPU time of this thread, best of three: other processes on a busy machine do not count.
  double ms = 1e9;
  for (int run = 0; run < 3; ++run) {
    double start = thread_cpu_ms();
    Graph g = Graph::parse(text);
    ms = std::min(ms, thread_cpu_ms() - start);
    BOOST_TEST(g.node_count() == 10000u);
  }
  BOOST_TEST_MESSAGE("10,000 nodes parsed in " << ms << " ms");
  // Only optimized, uninstrumented builds are timed; sanitizers slow everything down.
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__) && !OI_HAS_ASAN
  BOOST_TEST(ms < 50.0);
#endif
}

BOOST_AUTO_TEST_CASE(load_reads_files_and_reports_missing_ones) {
  BOOST_CHECK_EXCEPTION(Graph::load("/nonexistent/graph.oi"), oi::Error, [](const oi::Error& e) {
    return e.where() == "/nonexistent/graph.oi" &&
           std::string(e.what()) == "cannot open graph file";
  });
}
