// Validation of scopes (dsl.md "Scopes", validation.md): hints, what a scope may hold, the
// structure of scopes read from JSON, and "(in scope PATH)" on messages inside scopes.
#define BOOST_TEST_MODULE validate_scopes
#include <boost/test/unit_test.hpp>

#include "openinfer/graph_json.hpp"
#include "validate_test_util.hpp"

using namespace oi;
using oi::test::kPrelude;

namespace {

Diagnostics check(const std::string& source) {
  return validate_graph(Graph::parse(source, "t.oi"));
}

std::string entry(const std::string& body, const std::string& more_blocks = "") {
  return kPrelude + "block entry {\n" + body + "  return;\n}\n" + more_blocks;
}

}  // namespace

BOOST_AUTO_TEST_CASE(scopes_holding_every_allowed_node_are_valid) {
  auto s = entry(R"(  assign t: f32[B];
  scope attention (fuse=false, placement="vulkan", no_reorder=true) {
    op add(x, y) >> t;
    dep after(add) before(transfer);
    scope qk { transfer t >> y; cache.write t >> K[0, step]; cache.read K[0, 0] >> t; }
    cache.increment step;
    cache.reset K;
    barrier;
    loop l (i in 0..n) { scope inner { op add(y, t) >> y; } }
  }
  scope empty { }
)");
  auto d = check(s);
  BOOST_TEST(d.ok(), d.format());
  BOOST_TEST(d.messages().empty(), d.format());
}

BOOST_AUTO_TEST_CASE(unknown_and_mistyped_hints_are_located_errors) {
  auto s =
      entry(R"(  scope a (fusion=false, fuse=1, placement=cpu, no_reorder=true, no_reorder=false) {
    op add(x, y) >> y;
  }
)");
  auto d = check(s);
  EXPECT_ERROR_AT(
      d, s, "fusion=",
      "unknown scope hint 'fusion' (hints are fuse, no_reorder and placement) (in scope a)");
  EXPECT_ERROR_AT(d, s, "fuse=1", "scope hint 'fuse' takes true or false, got int");
  EXPECT_ERROR_AT(d, s, "placement=cpu", "scope hint 'placement' takes a backend name in quotes");
  EXPECT_ERROR_AT(d, s, "no_reorder=false", "scope hint 'no_reorder' is given twice");
  BOOST_TEST(d.error_count() == 4u, d.format());
}

BOOST_AUTO_TEST_CASE(terminators_await_and_branch_are_not_allowed_in_scopes) {
  auto s = kPrelude + R"(block entry {
  scope a {
    branch other;
    yield y;
    await y;
    return;
  }
}
block other { return; }
block consumer { await y; yield y; }
)";
  auto d = check(s);
  EXPECT_ERROR_AT(
      d, s, "branch other",
      "branch inside a scope: scopes hold no return, yield, await or branch (in scope a)");
  EXPECT_ERROR_AT(d, s, "yield y;\n    await", "yield inside a scope");
  EXPECT_ERROR_AT(d, s, "await y;\n    return", "inside a scope");
  EXPECT_ERROR_AT(d, s, "return;\n  }", "return inside a scope");
}

BOOST_AUTO_TEST_CASE(errors_inside_scopes_name_the_scope_path) {
  auto s = entry(R"(  scope attention {
    scope qk { op add(x, nope) >> y; op nosuch(x) >> y; }
  }
  op add(x, nope2) >> y;
)");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "nope)", "undefined variable 'nope' (in scope attention.qk)");
  EXPECT_ERROR_AT(d, s, "op nosuch", "(in scope attention.qk)");
  // Outside scopes, messages are as before.
  EXPECT_ERROR_AT(d, s, "nope2", "undefined variable 'nope2'");
  for (const auto& m : d.messages())
    if (m.message.find("nope2") != std::string::npos)
      BOOST_TEST(m.message.find("scope") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(json_scopes_must_be_contiguous_runs) {
  // A scope whose nodes are split by a node outside it, and a loop body in a scope that also
  // holds nodes of the block's own list: only JSON (or code) can say these.
  const std::string s = kPrelude + R"(block entry {
  scope a { op add(x, y) >> y; }
  op add(y, y) >> y;
  op add(x, c) >> y;
  loop l (i in 0..2) { op add(c, y) >> y; }
  return;
}
)";
  Graph g = Graph::parse(s, "t.oi");
  Block& entry = g.blocks[0];
  entry.nodes[2].scope = 0;          // a, then outside, then a again
  entry.nodes[3].body[0].scope = 0;  // a inside a loop that is outside a
  const Graph back = graph_from_json(graph_to_json(g), "t.oi");
  auto d = validate_graph(back);
  EXPECT_ERROR_AT(d, s, "op add(x, c)",
                  "op 'add' is in scope 'a', whose nodes must be one run in one node list");
  EXPECT_ERROR_AT(d, s, "op add(c, y)",
                  "op 'add' is in scope 'a', whose nodes must be one run in one node list");
  BOOST_TEST(d.error_count() == 2u, d.format());
}
