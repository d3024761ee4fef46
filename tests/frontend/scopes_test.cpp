// Scopes (dsl.md "Scopes"): what the parser builds, parse errors, and the JSON form of
// graph-json.md (version 2) read back to the same graph. Expected values are read off the DSL
// text by hand.
#define BOOST_TEST_MODULE frontend_scopes
#include <boost/test/unit_test.hpp>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"

using namespace oi;

namespace {

const char* kScoped = R"(dynamic { x: f32[B]; }
volatile { y: f32[B]; scope: f32[B]; }
block entry {
  op add(x, y) >> y;
  scope attention (fuse=false, placement="cpu") {
    op mul(y, y) >> y;
    scope qk (no_reorder=true) {
      op add(y, x) >> y;
      loop layers (l in 0..2) {
        op relu(y) >> y;
      }
    }
    barrier;
  }
  loop steps (i in 0..3) {
    scope body { op sub(y, x) >> y; }
  }
  op add(scope, x) >> scope;
  return y;
}
)";

std::string parse_error(const std::string& text) {
  try {
    Graph::parse(text, "g.oi");
  } catch (const Error& e) {
    return e.where() + ": " + e.what() + "\n" + e.context();
  }
  BOOST_FAIL("expected a parse error for: " + text);
  return {};
}

std::string json_error(const std::string& text) {
  try {
    graph_from_json(text, "g.json");
  } catch (const Error& e) {
    return e.what();
  }
  BOOST_FAIL("expected a JSON error for: " + text);
  return {};
}

bool has(const std::string& text, const std::string& part) {
  const bool found = text.find(part) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("'" << part << "' not in: " << text);
  return found;
}

}  // namespace

BOOST_AUTO_TEST_CASE(scopes_mark_nodes_and_keep_them_in_their_lists) {
  const Graph g = Graph::parse(kScoped, "g.oi");
  const Block& entry = *g.find_block("entry");
  // Flattened: add, mul, add, loop, barrier, loop, add, return.
  BOOST_TEST_REQUIRE(entry.nodes.size() == 8u);
  BOOST_TEST_REQUIRE(entry.scopes.size() == 3u);
  BOOST_TEST(entry.scopes[0].name == "attention");
  BOOST_TEST(entry.scopes[0].parent == -1);
  BOOST_TEST(entry.scopes[0].loc.line == 5u);
  BOOST_TEST(entry.scopes[0].loc.col == 3u);
  BOOST_TEST_REQUIRE(entry.scopes[0].hints.size() == 2u);
  BOOST_TEST(entry.scopes[0].hints[0].name == "fuse");
  BOOST_TEST((entry.scopes[0].hints[0].value == Value::boolean(false)));
  BOOST_TEST((entry.scopes[0].hints[1].value == Value::string("cpu")));
  BOOST_TEST(entry.scopes[1].name == "qk");
  BOOST_TEST(entry.scopes[1].parent == 0);
  BOOST_TEST(entry.scopes[2].name == "body");
  BOOST_TEST(entry.scopes[2].parent == -1);

  const int expected[] = {-1, 0, 1, 1, 0, -1, -1, -1};
  for (size_t i = 0; i < entry.nodes.size(); ++i) BOOST_TEST(entry.nodes[i].scope == expected[i]);
  BOOST_TEST(entry.nodes[3].body.at(0).scope == 1);      // relu: in the loop inside qk
  BOOST_TEST(entry.nodes[5].body.at(0).scope == 2);      // sub: in the scope inside the loop
  BOOST_TEST(entry.nodes[6].inputs[0].name == "scope");  // `scope` stays a name

  BOOST_TEST(scope_path(entry, 1) == "attention.qk");
  BOOST_TEST(scope_path(entry, -1) == "");
  BOOST_TEST(scope_within(entry, 1, 0));
  BOOST_TEST(!scope_within(entry, 0, 1));
  BOOST_TEST(!scope_within(entry, 2, 0));
  const ScopeHints qk = scope_hints(entry, 1);  // inherits fuse and placement
  BOOST_TEST(!qk.fuse);
  BOOST_TEST(qk.no_reorder);
  BOOST_TEST(qk.placement == "cpu");
  BOOST_TEST(scope_hints(entry, 2).fuse);
}

BOOST_AUTO_TEST_CASE(scopes_change_neither_numbering_nor_uuids) {
  const Graph scoped = Graph::parse(R"(dynamic { x: f32[B]; }
block entry { scope a { op relu(x) >> x; loop l (i in 0..2) { op relu(x) >> x; } } return; })");
  const Graph plain = Graph::parse(R"(dynamic { x: f32[B]; }
block entry { op relu(x) >> x; loop l (i in 0..2) { op relu(x) >> x; } return; })");
  const auto& a = scoped.blocks[0].nodes;
  const auto& b = plain.blocks[0].nodes;
  BOOST_TEST_REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    BOOST_TEST(a[i].uuid == b[i].uuid);
    BOOST_TEST(a[i].index == b[i].index);
  }
  BOOST_TEST(a[1].body[0].uuid == b[1].body[0].uuid);
}

BOOST_AUTO_TEST_CASE(scope_parse_errors_are_located) {
  BOOST_TEST(has(parse_error("block entry { scope a op relu(x) >> x; }"),
                 "g.oi:1:23: expected '{' to open the scope"));
  BOOST_TEST(has(parse_error("block entry { scope a (fuse) { } }"),
                 "g.oi:1:24: expected a hint (name=value) in the scope's hints"));
  BOOST_TEST(has(parse_error("block entry { scope a (fuse=true placement=\"cpu\") { } }"),
                 "g.oi:1:34: expected ',' or ')' after the hint"));
  BOOST_TEST(has(parse_error("block entry { scope a { op relu(x) >> x; }"),
                 "expected '}' to close the block"));
  BOOST_TEST(has(parse_error("block entry { scope return { } }"),
                 "expected a scope name, found the keyword 'return'"));
  std::string deep = "block entry { ";
  for (int i = 0; i < 65; ++i) deep += "scope s { ";
  BOOST_TEST(has(parse_error(deep), "scopes nest too deeply"));
}

BOOST_AUTO_TEST_CASE(scoped_graphs_round_trip_through_json_version_2) {
  const Graph g = Graph::parse(kScoped, "g.oi");
  const std::string json = graph_to_json(g);
  BOOST_TEST(has(json, R"("version": 2)"));
  BOOST_TEST(has(json, R"("scopes": [)"));
  BOOST_TEST(has(json, R"("scope": 1)"));
  const Graph back = graph_from_json(json, "g.json");
  BOOST_TEST((back == g));
  BOOST_TEST((back.blocks[0].scopes == g.blocks[0].scopes));
  BOOST_TEST(graph_to_json(back) == json);
}

BOOST_AUTO_TEST_CASE(graphs_without_scopes_stay_version_1) {
  const Graph g = Graph::parse("dynamic { x: f32[B]; } block entry { op relu(x) >> x; return; }");
  const std::string json = graph_to_json(g);
  BOOST_TEST(has(json, R"("version": 1)"));
  BOOST_TEST(!has(json, "scope"));
  BOOST_TEST((graph_from_json(json) == g));
}

BOOST_AUTO_TEST_CASE(scope_json_errors_name_the_path) {
  const std::string head = R"({"format": "openinfer-graph", "version": )";
  const std::string node = R"({"kind": "Barrier", "scope": 0})";
  BOOST_TEST(has(json_error(head + R"(1, "decls": [], "blocks": [{"name": "entry", "nodes": [)" +
                            node + "]}]}"),
                 "blocks[0].nodes[0].scope: unknown field (scopes need version 2)"));
  BOOST_TEST(has(json_error(head + R"(1, "decls": [], "blocks": [{"name": "entry", "scopes": [],)"
                                   R"( "nodes": []}]})"),
                 "blocks[0].scopes: unknown field"));
  BOOST_TEST(has(json_error(head + R"(2, "decls": [], "blocks": [{"name": "entry", "nodes": [)" +
                            node + "]}]}"),
                 "blocks[0].nodes[0].scope: expected the index of one of the block's scopes"));
  BOOST_TEST(has(json_error(head + R"(2, "decls": [], "blocks": [{"name": "entry", "scopes": )"
                                   R"([{"name": "a", "parent": 0}], "nodes": []}]})"),
                 "blocks[0].scopes[0].parent: expected the index of an earlier scope"));
  BOOST_TEST(has(json_error(head + R"(2, "decls": [], "blocks": [{"name": "entry", "scopes": )"
                                   R"([{"name": "a", "color": 1}], "nodes": []}]})"),
                 "blocks[0].scopes[0].color: unknown field"));
  BOOST_TEST(has(json_error(head + R"(3, "decls": [], "blocks": []})"),
                 "unsupported version 3 (this reader knows 1 to 2)"));
}
