// oi::trace_events_to_json over real executor events: tracks, step slices, the logical clock of
// untimed events, microsecond times of timed ones. Also the minimal example's model shape: a
// model declaration without data leaves the graph's @init in place.
#define BOOST_TEST_MODULE trace_events
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"
#include "openinfer/trace_events.hpp"

namespace json = boost::json;

namespace {

std::shared_ptr<oi::Backend> cpu() {
  static oi::PluginRegistry registry = oi::PluginRegistry::discover({OPENINFER_TEST_PLUGIN_DIR});
  return registry.backend("cpu");
}

oi::Simulator simulate(const oi::ModelWriter& w, const std::string& text) {
  return oi::Simulator(oi::Model::from_bytes(w.to_bytes(), "test.oinf"),
                       oi::Graph::parse(text, "test.oi"), cpu());
}

const std::string kPipeline = R"(
dynamic { x: f32[N]; }
volatile { a: f32[N]; b: f32[N]; }
block entry {
  op add(x, x) >> a;
  yield a;
  await a;
  return a;
}
block twice {
  await a;
  op add(a, a) >> b;
  yield a;
}
)";

// Runs `steps` steps of kPipeline and returns every step's events.
std::vector<oi::ExecEvent> run_pipeline(oi::Executor& exec, int steps) {
  std::vector<oi::ExecEvent> all;
  for (int s = 0; s < steps; ++s) {
    exec.insert("x", oi::Tensor::from<float>({1, 2}));
    exec.step();
    all.insert(all.end(), exec.events().begin(), exec.events().end());
  }
  return all;
}

std::vector<json::object> of(const json::object& doc, std::string_view ph, std::string_view cat) {
  std::vector<json::object> out;
  for (const auto& v : doc.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (e.at("ph").as_string() != ph) continue;
    if (!cat.empty() && e.at("cat").as_string() != cat) continue;
    out.push_back(e);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(untimed_events_get_one_microsecond_each_in_order) {
  oi::ModelWriter w;
  w.add_sizevar("N", 2);
  auto sim = simulate(w, kPipeline);
  auto exec = sim.make_executor();
  const auto events = run_pipeline(exec, 2);  // timing off: all times zero
  BOOST_TEST_REQUIRE(events.size() == 2u * (4 + 3));
  const json::object doc = oi::trace_events_to_json(events);

  const auto nodes = of(doc, "X", "node");
  BOOST_TEST_REQUIRE(nodes.size() == events.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    BOOST_TEST(nodes[i].at("ts").to_number<double>() == static_cast<double>(i));
    BOOST_TEST(nodes[i].at("dur").to_number<double>() == 1.0);
    BOOST_TEST(nodes[i].at("pid").as_int64() == 1);
    BOOST_TEST(nodes[i].at("tid").to_number<uint64_t>() == events[i].track);
    const auto& args = nodes[i].at("args").as_object();
    BOOST_TEST(args.at("node_uuid").as_string() == std::string(events[i].node_uuid));
    BOOST_TEST(args.at("block_name").as_string() == (events[i].track == 0 ? "entry" : "twice"));
  }

  // Step k spans its 7 nodes: [7k, 7k + 7) µs, on both tracks.
  const auto steps = of(doc, "X", "step");
  BOOST_TEST_REQUIRE(steps.size() == 4u);
  for (const auto& s : steps) {
    const auto k = s.at("args").at("step").to_number<int64_t>();
    BOOST_TEST(s.at("name").as_string() == "step " + std::to_string(k));
    BOOST_TEST(s.at("ts").to_number<double>() == 7.0 * static_cast<double>(k));
    BOOST_TEST(s.at("dur").to_number<double>() == 7.0);
  }

  std::map<int64_t, std::string> names;
  for (const auto& m : of(doc, "M", ""))
    if (m.at("name").as_string() == "thread_name")
      names[m.at("tid").to_number<int64_t>()] = m.at("args").at("name").as_string().c_str();
  BOOST_TEST((names == std::map<int64_t, std::string>{{0, "entry"}, {1, "twice"}}));
}

BOOST_AUTO_TEST_CASE(timed_events_are_microseconds_since_the_executor_started) {
  oi::ModelWriter w;
  w.add_sizevar("N", 2);
  auto sim = simulate(w, kPipeline);
  auto exec = sim.make_executor();
  exec.set_timing(true);
  const auto events = run_pipeline(exec, 1);
  const json::object doc = oi::trace_events_to_json(events, {"custom"});
  const auto nodes = of(doc, "X", "node");
  BOOST_TEST_REQUIRE(nodes.size() == events.size());
  int64_t first = INT64_MAX, last = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    BOOST_TEST(nodes[i].at("ts").to_number<double>() == events[i].start_ns / 1000.0);
    BOOST_TEST(nodes[i].at("dur").to_number<double>() ==
               (events[i].end_ns - events[i].start_ns) / 1000.0);
    first = std::min(first, events[i].start_ns);
    last = std::max(last, events[i].end_ns);
  }
  BOOST_TEST(last > first);
  for (const auto& s : of(doc, "X", "step")) {
    BOOST_TEST(s.at("ts").to_number<double>() == first / 1000.0);
    BOOST_TEST(s.at("dur").to_number<double>() == (last - first) / 1000.0);
  }
  const auto meta = of(doc, "M", "");
  BOOST_TEST(meta.front().at("args").at("name").as_string() == "custom");
}

BOOST_AUTO_TEST_CASE(a_model_declaration_without_data_keeps_init) {
  oi::ModelWriter w;
  w.add_sizevar("B", 2);
  w.add_tensor("a", oi::Tensor::from<float>({1.5f, -3.0f}));
  w.add_declaration("y", oi::DType::f32, {2});
  w.add_declaration("z", oi::DType::f32, {2});
  auto sim = simulate(w, R"(
dynamic { x: f32[B]; }
volatile {
  a: f32[B];
  y: f32[B] @init(5.0);
  z: f32[B];
}
block entry {
  assign t0: f32[B];
  op add(x, a) >> t0;
  op mul(y, t0) >> y;
  return y, z;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", oi::Tensor::from<float>({0.5f, 1.0f}));
  exec.step();
  // 5 * (0.5 + 1.5) = 10, 5 * (1 - 3) = -10; z: no @init, so the declaration's zeros.
  BOOST_TEST(exec.fetch<float>("y").data == std::vector<float>({10.0f, -10.0f}));
  BOOST_TEST(exec.fetch<float>("z").data == std::vector<float>({0.0f, 0.0f}));
}
