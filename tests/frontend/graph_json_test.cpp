// graph_to_json / graph_from_json: the schema of docs/graph-json.md, checked against a
// hand-written fixture, and every malformed input rejected with a path to the problem.
#define BOOST_TEST_MODULE frontend_graph_json
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"

using namespace oi;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(OPENINFER_SOURCE_DIR) + "/tests/frontend/fixtures/" + name);
  BOOST_REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string json_failure(const std::string& text) {
  try {
    graph_from_json(text, "g.json");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Input));
    BOOST_TEST(e.where() == "g.json");
    return e.what();
  }
  BOOST_FAIL("expected a JSON error for: " + text);
  return {};
}

// A valid document around one node, for schema checks of node fields.
std::string with_node(const std::string& node) {
  return R"({"format": "openinfer-graph", "version": 1, "decls": [], "blocks": [)"
         R"({"name": "entry", "nodes": [)" +
         node + "]}]}";
}

}  // namespace

BOOST_AUTO_TEST_CASE(serialization_matches_the_hand_written_fixture) {
  Graph g = Graph::parse(fixture("tiny_graph.oi"), "tiny.oi");
  BOOST_TEST(graph_to_json(g) == fixture("tiny_graph.json"));
}

BOOST_AUTO_TEST_CASE(node_uuids_match_the_python_fixture) {
  std::istringstream lines(fixture("node_uuids.txt"));
  std::string path, uuid;
  int count = 0;
  while (lines >> path >> uuid) {
    size_t slash = path.find('/');
    BOOST_TEST(node_uuid(path.substr(0, slash), path.substr(slash + 1)) == uuid);
    ++count;
  }
  BOOST_TEST(count == 6);
}

BOOST_AUTO_TEST_CASE(reading_the_fixture_gives_back_the_parsed_graph) {
  Graph parsed = Graph::parse(fixture("tiny_graph.oi"), "tiny.oi");
  Graph loaded = graph_from_json(fixture("tiny_graph.json"), "ignored.json");
  BOOST_TEST((loaded == parsed));
  BOOST_TEST(loaded.origin == "tiny.oi");
  BOOST_TEST(loaded.blocks[0].nodes[1].body[0].loc.to_string() == "tiny.oi:5:5");
  BOOST_TEST(loaded.blocks[0].nodes[2].index == 3u);
}

BOOST_AUTO_TEST_CASE(values_round_trip_exactly) {
  Graph g = Graph::parse(R"(
    constant { a: f64 @init(0.1) @x(-inf, inf, 1e-300, 123456789.125, -0.0, "s\n", false); }
    block entry { op f(a, i=-9223372036854775808, d=bf16, n=name, l=[1, -2], e=[]) >> a;
                  cache.read K[t-1, ..] >> a; return; })");
  std::string first = graph_to_json(g);
  Graph back = graph_from_json(first);
  BOOST_TEST(graph_to_json(back) == first);
  BOOST_TEST((back == g));
  BOOST_TEST(back.decls[0].init->float_value == 0.1);
  BOOST_TEST(std::signbit(back.decls[0].other_attributes[0].args[4].float_value));
}

// A literal above INT64_MAX is a u64 value: its bits in int_value, written back unsigned.
BOOST_AUTO_TEST_CASE(u64_literals_round_trip) {
  Graph g = Graph::parse(R"(
    constant { a: u64 @init(18446744073709551615); }
    block entry { op clamp(a, max=9223372036854775808, min=9223372036854775807) >> a; return; })");
  const Value& init = *g.decls[0].init;
  BOOST_TEST(init.above_int64);
  BOOST_TEST(init.int_value == -1);
  BOOST_TEST(init.int_text() == "18446744073709551615");
  std::string first = graph_to_json(g);
  BOOST_TEST(first.find("18446744073709551615") != std::string::npos);
  Graph back = graph_from_json(first);
  BOOST_TEST((back == g));
  const auto& settings = back.blocks[0].nodes[0].settings;
  BOOST_TEST(settings[0].value.above_int64);
  BOOST_TEST(!settings[1].value.above_int64);
  BOOST_TEST(settings[1].value.int_value == INT64_MAX);
}

BOOST_AUTO_TEST_CASE(locations_can_be_left_out) {
  Graph g = Graph::parse(fixture("tiny_graph.oi"), "tiny.oi");
  std::string text = graph_to_json(g, {.locations = false});
  BOOST_TEST(text.find("\"loc\"") == std::string::npos);
  Graph back = graph_from_json(text);
  BOOST_TEST(back.blocks[0].nodes[0].loc.line == 0u);
  BOOST_TEST(graph_to_json(back, {.locations = false}) == text);
}

BOOST_AUTO_TEST_CASE(malformed_json_is_an_error_not_a_crash) {
  BOOST_TEST(json_failure("").find("malformed graph JSON") == 0u);
  BOOST_TEST(json_failure("{").find("malformed graph JSON") == 0u);
  BOOST_TEST(json_failure("[1, 2").find("malformed graph JSON") == 0u);
  BOOST_TEST(json_failure(std::string(100000, '[')).find("malformed graph JSON") == 0u);
}

BOOST_AUTO_TEST_CASE(schema_violations_name_the_path) {
  BOOST_TEST(json_failure("[]") == "invalid graph JSON at the top level: expected an object");
  BOOST_TEST(json_failure(R"({"format": "x", "version": 1, "decls": [], "blocks": []})") ==
             "invalid graph JSON at format: expected \"openinfer-graph\"");
  BOOST_TEST(
      json_failure(R"({"format": "openinfer-graph", "version": 3, "decls": [], "blocks": []})") ==
      "invalid graph JSON at version: unsupported version 3 (this reader knows 1 to 2)");
  BOOST_TEST(json_failure(R"({"format": "openinfer-graph", "version": 1, "blocks": []})") ==
             "invalid graph JSON at decls: missing field");
  BOOST_TEST(
      json_failure(
          R"({"format": "openinfer-graph", "version": 1, "decls": [], "blocks": [], "x": 1})") ==
      "invalid graph JSON at x: unknown field");
  BOOST_TEST(json_failure(R"({"format": "openinfer-graph", "version": 1, "blocks": [],
      "decls": [{"name": "a", "memory": "heap", "dtype": "f32", "dims": []}]})") ==
             "invalid graph JSON at decls[0].memory: unknown memory kind 'heap' (dynamic, "
             "volatile, constant, persistent)");
  BOOST_TEST(json_failure(R"({"format": "openinfer-graph", "version": 1, "blocks": [],
      "decls": [{"name": "a", "memory": "dynamic", "dtype": "f31", "dims": []}]})") ==
             "invalid graph JSON at decls[0].dtype: unknown dtype 'f31'");
  BOOST_TEST(json_failure(R"({"format": "openinfer-graph", "version": 1, "blocks": [],
      "decls": [{"name": "a", "memory": "dynamic", "dtype": "f32", "dims": [[]]}]})") ==
             "invalid graph JSON at decls[0].dims[0]: a dim needs at least one factor");
  BOOST_TEST(json_failure(R"({"format": "openinfer-graph", "version": 1, "blocks": [],
      "decls": [{"name": "a", "memory": "dynamic", "dtype": "f32", "dims": [[-1]]}]})") ==
             "invalid graph JSON at decls[0].dims[0][0]: expected a non-negative integer");
  BOOST_TEST(
      json_failure(R"({"format": "openinfer-graph", "version": 1, "blocks": [],
      "decls": [{"name": "a", "memory": "dynamic", "dtype": "f32", "dims": [], "init": {"ident": "x"}}]})") ==
      "invalid graph JSON at decls[0].init: expected a literal (int, float, bool or string)");
  BOOST_TEST(json_failure(with_node(R"({"kind": "Jump"})")) ==
             "invalid graph JSON at blocks[0].nodes[0].kind: unknown node kind 'Jump'");
  BOOST_TEST(
      json_failure(with_node(R"({"kind": "Op", "op": "relu", "inputs": [], "settings": []})")) ==
      "invalid graph JSON at blocks[0].nodes[0].output: missing field");
  BOOST_TEST(json_failure(with_node(R"({"kind": "Barrier", "op": "x"})")) ==
             "invalid graph JSON at blocks[0].nodes[0].op: unknown field");
  BOOST_TEST(
      json_failure(with_node(R"({"kind": "Op", "op": "f", "inputs": [], "output": {"name": "y"},
      "settings": [{"name": "a", "value": {"float": "nan"}}]})")) ==
      "invalid graph JSON at blocks[0].nodes[0].settings[0].value.float: expected a decimal "
      "float, \"inf\" or \"-inf\"");
  BOOST_TEST(
      json_failure(with_node(R"({"kind": "Op", "op": "f", "inputs": [], "output": {"name": "y"},
      "settings": [{"name": "a", "value": {"int": 1, "bool": true}}]})"))
          .find("expected an object with exactly one of") != std::string::npos);
  BOOST_TEST(json_failure(with_node(R"({"kind": "Transfer", "input": {"name": "a"},
      "output": {"name": "b", "slots": [{"start": 0, "end": null}]}})")) ==
             "invalid graph JSON at blocks[0].nodes[0].output: expected a variable or table "
             "entry, not a slice");
  BOOST_TEST(
      json_failure(with_node(R"({"kind": "CacheReset", "target": {"name": "K", "slots": [{}]}})"))
          .find("expected a slot") != std::string::npos);
  BOOST_TEST(json_failure(with_node(R"({"kind": "Return", "names": [""]})")) ==
             "invalid graph JSON at blocks[0].nodes[0].names[0]: expected a non-empty name");
  BOOST_TEST(json_failure(with_node(R"({"kind": "Yield", "names": []})")) ==
             "invalid graph JSON at blocks[0].nodes[0].names: expected at least one name");
  BOOST_TEST(json_failure(with_node(R"({"kind": "Barrier", "loc": [0, 1]})")) ==
             "invalid graph JSON at blocks[0].nodes[0].loc[0]: expected a positive line or column");
  BOOST_TEST(json_failure(with_node(R"({"kind": "CacheIncrement", "var": "s", "amount": 1.5})")) ==
             "invalid graph JSON at blocks[0].nodes[0].amount: expected a 64-bit signed integer");
  BOOST_TEST(json_failure(with_node(R"({"kind": "Branch", "then": "a", "cond": "c"})")) ==
             "invalid graph JSON at blocks[0].nodes[0].else: missing field");
}

BOOST_AUTO_TEST_CASE(deep_loops_in_json_are_capped) {
  std::string node = R"({"kind": "Barrier"})";
  for (int i = 0; i < 70; ++i) {
    node = R"({"kind": "Loop", "name": "l", "var": "i", "start": 0, "end": 2, "body": [)" + node +
           "]}";
  }
  BOOST_TEST(json_failure(with_node(node)).find("loops nest too deeply") != std::string::npos);
}
