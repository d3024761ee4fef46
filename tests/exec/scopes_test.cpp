// Scopes in the simulator (dsl.md "Scopes"): events name the scopes of their node with an
// entry number per entry, the trace JSON and Perfetto events show them, and a `placement` moves
// a scope's ops to another backend (the host taking ops that backend lacks) with identical
// results. Inputs are small integers, so every result is exact whatever the backend.
#include <boost/json.hpp>

#include "openinfer/trace_events.hpp"
#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;

namespace {

std::shared_ptr<oi::Backend> devmem() {
  static oi::PluginRegistry registry = oi::PluginRegistry::discover({EXEC_FIXTURE_PLUGIN_DIR});
  static std::shared_ptr<oi::Backend> backend = registry.backend("devmem");
  return backend;
}

const char* kNested = R"(
dynamic { x: f32[4]; }
volatile { y: f32[4]; }
block entry {
  op add(x, x) >> y;
  scope outer {
    op add(y, x) >> y;
    loop l (i in 0..2) {
      scope inner { op add(y, x) >> y; }
    }
  }
  scope outer { op add(y, x) >> y; }
  return y;
}
)";

Tensor input8() {
  return Tensor::from<float>({1, 2, 3, 4, 5, 6, 7, 8}, {8});
}

// add, then (placed) add, mul, max, then add again; 8 floats are above the host's tiny-op size.
std::string placed_graph(const std::string& hints) {
  return R"(
dynamic { x: f32[8]; }
volatile { y: f32[8]; z: f32[8]; }
block entry {
  op add(x, x) >> y;
  scope dev )" +
         hints +
         R"( {
    op add(y, x) >> y;
    op mul(y, x) >> z;
    op max(z, y) >> z;
  }
  op add(z, x) >> z;
  return z;
}
)";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scopes)

BOOST_AUTO_TEST_CASE(events_list_their_scopes_with_one_entry_number_per_entry) {
  auto sim = simulate(oi::ModelWriter(), kNested);
  auto exec = sim.make_executor();
  exec.insert({{"x", Tensor::from<float>({1, 2, 3, 4}, {4})}});
  exec.step();
  // y = 2x, then + x four times: 6x.
  BOOST_TEST((values<float>(exec, "y") == std::vector<float>{6, 12, 18, 24}));
  std::vector<std::string> got;
  for (const oi::ExecEvent& ev : exec.events()) {
    std::string line = std::string(ev.op_name) + ":";
    for (const oi::ExecScope& s : ev.scopes)
      line += " " + std::string(s.name) + "#" + std::to_string(s.instance);
    got.push_back(line + " [" + std::string(ev.scope()) + "]");
  }
  // outer is entered once around the loop; inner once per iteration; the second outer anew.
  const std::vector<std::string> expected = {
      "add: []",
      "add: outer#0 [outer]",
      "loop: outer#0 [outer]",
      "add: outer#0 inner#1 [outer.inner]",
      "add: outer#0 inner#2 [outer.inner]",
      "add: outer#3 [outer]",
      "return: []",
  };
  BOOST_TEST(got == expected, boost::test_tools::per_element());

  // A second step numbers again from 0.
  exec.insert({{"x", Tensor::from<float>({1, 2, 3, 4}, {4})}});
  exec.step();
  BOOST_TEST(exec.events()[1].scopes.at(0).instance == 0u);
}

BOOST_AUTO_TEST_CASE(trace_json_and_trace_events_show_scopes) {
  auto sim = simulate(oi::ModelWriter(), kNested);
  auto exec = sim.make_executor();
  exec.insert({{"x", Tensor::from<float>({1, 2, 3, 4}, {4})}});
  exec.step();
  const boost::json::array trace = exec.trace();
  BOOST_TEST(!trace.at(0).as_object().contains("scope"));
  BOOST_TEST(trace.at(3).as_object().at("scope").as_string() == "outer.inner");

  // Untimed events are laid out one microsecond per node: node k spans [k, k+1) us.
  const boost::json::object doc = oi::trace_events_to_json(exec.events());
  std::vector<std::string> slices;
  for (const auto& e : doc.at("traceEvents").as_array()) {
    const auto& o = e.as_object();
    if (o.at("ph").as_string() != "X" || o.at("cat").as_string() != "scope") continue;
    slices.push_back(std::string(o.at("name").as_string()) + " " +
                     std::to_string(o.at("ts").to_number<double>()) + " " +
                     std::to_string(o.at("dur").to_number<double>()) + " " +
                     std::string(o.at("args").as_object().at("scope").as_string()));
  }
  // Outer scopes first: outer spans nodes 1-4, the second outer node 5; inner nodes 3 and 4.
  const std::vector<std::string> expected = {
      "outer 1.000000 4.000000 outer",
      "outer 5.000000 1.000000 outer",
      "inner 3.000000 1.000000 outer.inner",
      "inner 4.000000 1.000000 outer.inner",
  };
  BOOST_TEST(slices == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(placement_moves_a_scope_to_another_backend_with_identical_results) {
  oi::SimulatorOptions options;
  options.placements = {devmem()};
  oi::Simulator placed(model(oi::ModelWriter()),
                       oi::Graph::parse(placed_graph("(placement=\"devmem\")"), "test.oi"), cpu(),
                       options);
  oi::Simulator plain(model(oi::ModelWriter()), oi::Graph::parse(placed_graph(""), "test.oi"),
                      cpu());
  std::vector<std::vector<float>> results;
  for (const oi::Simulator* sim : {&placed, &plain}) {
    auto exec = sim->make_executor();
    exec.insert({{"x", input8()}});
    exec.step();
    results.push_back(values<float>(exec, "z"));
    if (sim == &placed) {
      std::vector<std::string> backends;
      for (const oi::ExecEvent& ev : exec.events())
        if (ev.kind == oi::NodeKind::Op) backends.push_back(std::string(ev.backend));
      // devmem has add and max, not mul: mul falls back to the host (cpu).
      const std::vector<std::string> expected = {"cpu", "devmem", "cpu", "devmem", "cpu"};
      BOOST_TEST(backends == expected, boost::test_tools::per_element());
    }
  }
  // y = 2x + x = 3x; z = max(3x * x, 3x) + x = 3x^2 + x for x >= 1.
  std::vector<float> expected;
  for (float x = 1; x <= 8; ++x) expected.push_back(3 * x * x + x);
  BOOST_TEST(results[0] == expected, boost::test_tools::per_element());
  BOOST_TEST(results[1] == expected, boost::test_tools::per_element());

  bool warned = false;
  for (const std::string& w : placed.warnings())
    warned = warned || contains(w,
                                "warning: backend 'devmem' (the placement of scope dev) lacks op "
                                "'mul' (f32, f32) -> f32 in normal mode; this node runs on 'cpu'");
  BOOST_TEST(warned);
}

BOOST_AUTO_TEST_CASE(a_placement_naming_no_loaded_backend_warns_and_runs_on_the_own_backend) {
  auto sim = simulate(oi::ModelWriter(), placed_graph("(placement=\"nosuch\")"));
  bool warned = false;
  for (const std::string& w : sim.warnings())
    warned = warned || contains(w,
                                "warning: no backend 'nosuch' is loaded for the placement of "
                                "scope dev; this node runs on 'cpu'");
  BOOST_TEST(warned);
  auto exec = sim.make_executor();
  exec.insert({{"x", input8()}});
  exec.step();
  for (const oi::ExecEvent& ev : exec.events())
    if (ev.kind == oi::NodeKind::Op) BOOST_TEST(ev.backend == "cpu");
}

BOOST_AUTO_TEST_SUITE_END()
