// The executor API: iterate() with fetches between nodes, trace JSON, timing, and bad use.
#include <boost/json.hpp>

#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

namespace {

oi::ModelWriter small_model() {
  oi::ModelWriter w;
  w.add_sizevar("B", 2);
  w.add_tensor("a", Tensor::from<float>({1, 2}));
  return w;
}

const char* kGraph = R"(
dynamic { x: f32[B]; }
volatile {
  a: f32[B];
  y: f32[B] @init(5.0);
}
persistent { count: i32; }
block entry {
  assign t0: f32[B];
  op add(x, a) >> t0;
  op mul(y, t0) >> y;
  return;
}
)";

}  // namespace

BOOST_AUTO_TEST_SUITE(api)

BOOST_AUTO_TEST_CASE(iterate_yields_one_event_per_node_and_allows_fetch) {
  auto sim = simulate(small_model(), kGraph);
  auto exec = sim.make_executor();
  exec.insert({{"x", Tensor::from<float>({10, 20})}});
  std::vector<std::string> kinds;
  std::vector<std::vector<float>> ys;
  for (const auto& ev : exec.iterate()) {
    kinds.push_back(std::string(oi::node_kind_name(ev.kind)));
    ys.push_back(values<float>(exec, "y"));
    BOOST_TEST(ev.block == "entry");
    BOOST_TEST(ev.node_uuid == ev.node->uuid);
  }
  BOOST_TEST(kinds == std::vector<std::string>({"Assign", "Op", "Op", "Return"}),
             tt::per_element());
  // y is its @init until the mul ran: 5 * (10 + 1), 5 * (20 + 2).
  BOOST_TEST(ys[1] == std::vector<float>({5, 5}), tt::per_element());
  BOOST_TEST(ys[2] == std::vector<float>({55, 110}), tt::per_element());
  BOOST_TEST(exec.step_count() == 1u);
  BOOST_TEST(!exec.in_step());
}

BOOST_AUTO_TEST_CASE(leaving_iterate_early_and_finishing_with_step) {
  auto sim = simulate(small_model(), kGraph);
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({0, 0}));
  for (const auto& ev : exec.iterate()) {
    if (ev.kind == oi::NodeKind::Op) break;
  }
  BOOST_TEST(exec.in_step());
  std::string msg = error_of([&] { exec.insert("x", Tensor::from<float>({1, 1})); });
  BOOST_TEST(contains(msg, "while a step is running"));
  exec.step();
  BOOST_TEST(!exec.in_step());
  BOOST_TEST(values<float>(exec, "y") == std::vector<float>({5, 10}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(trace_json_has_the_seeds_fields) {
  auto sim = simulate(small_model(), kGraph);
  auto exec = sim.make_executor();
  exec.set_timing(true);
  exec.insert("x", Tensor::from<float>({1, 1}));
  exec.step();
  boost::json::array trace = exec.trace();
  BOOST_TEST_REQUIRE(trace.size() == 4u);
  const auto& op = trace[1].as_object();
  BOOST_TEST(op.at("block_name").as_string() == "entry");
  BOOST_TEST(op.at("node_index").to_number<int64_t>() == 1);
  BOOST_TEST(op.at("kind").as_string() == "OpExecute");
  BOOST_TEST(op.at("op_name").as_string() == "add");
  BOOST_TEST(op.at("backend").as_string() == "cpu");  // where it ran
  BOOST_TEST(!op.contains("declined_by"));
  BOOST_TEST(op.at("params").as_array() == boost::json::array({"x", "a"}));
  BOOST_TEST(op.at("output").as_array() == boost::json::array({"t0"}));
  BOOST_TEST(op.at("node_uuid").as_string() == sim.graph().blocks[0].nodes[1].uuid);
  const auto& micros = op.at("micros").as_array();
  BOOST_TEST(micros.size() == 3u);
  int64_t ns = micros[0].to_number<int64_t>() * 1000000 + micros[1].to_number<int64_t>() * 1000 +
               micros[2].to_number<int64_t>();
  BOOST_TEST(ns == op.at("end_ns").to_number<int64_t>() - op.at("start_ns").to_number<int64_t>());
  BOOST_TEST(ns > 0);
  BOOST_TEST(trace[0].as_object().at("kind").as_string() == "Assign");
  BOOST_TEST(trace[0].as_object().at("output").as_array() == boost::json::array({"t0"}));
  BOOST_TEST(trace[3].as_object().at("kind").as_string() == "Return");
}

BOOST_AUTO_TEST_CASE(timing_is_off_by_default) {
  auto sim = simulate(small_model(), kGraph);
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 1}));
  exec.step();
  for (const auto& ev : exec.events()) BOOST_TEST(ev.duration_ns() == 0);
}

BOOST_AUTO_TEST_CASE(bad_inserts) {
  auto sim = simulate(small_model(), kGraph);
  auto exec = sim.make_executor();
  std::string msg = error_of([&] { exec.insert("y", Tensor::from<float>({1, 1})); });
  BOOST_TEST(contains(msg, "'y'"));
  BOOST_TEST(contains(msg, "volatile memory"));
  msg = error_of([&] { exec.insert("x", Tensor::from<int32_t>({1, 1})); });
  BOOST_TEST(contains(msg, "i32[2]"));
  BOOST_TEST(contains(msg, "f32[2]"));
  msg = error_of([&] { exec.insert("x", Tensor::from<float>({1, 1, 1})); });
  BOOST_TEST(contains(msg, "f32[3]"));
  msg = error_of([&] { exec.insert("nope", Tensor::from<float>({1, 1})); });
  BOOST_TEST(contains(msg, "'nope'"));
}

BOOST_AUTO_TEST_CASE(bad_fetches) {
  auto sim = simulate(small_model(), kGraph);
  auto exec = sim.make_executor();
  std::string msg = error_of([&] { exec.fetch("z"); });
  BOOST_TEST(contains(msg, "cannot fetch 'z'"));
  BOOST_TEST(contains(msg, "declared: x, a, y, count, t0"));
  msg = error_of([&] { exec.fetch("x"); });
  BOOST_TEST(contains(msg, "never inserted"));
  msg = error_of([&] { exec.fetch<int32_t>("y"); });
  BOOST_TEST(contains(msg, "as i32: it is f32"));
  BOOST_TEST(values<int32_t>(exec, "count")[0] == 0);  // persistent without @init: zeros
  BOOST_TEST(exec.declared_names() == std::vector<std::string>({"x", "a", "y", "count", "t0"}),
             tt::per_element());
}

BOOST_AUTO_TEST_CASE(invalid_graphs_are_rejected_with_every_error) {
  std::string msg = error_of([&] {
    simulate(small_model(), R"(
dynamic { x: f32[B]; }
block entry {
  op add(x, missing) >> x;
  return;
}
)");
  });
  BOOST_TEST(contains(msg, "does not validate"));
  BOOST_TEST(contains(msg, "missing"));
}

BOOST_AUTO_TEST_CASE(executors_are_independent) {
  auto sim = simulate(small_model(), R"(
persistent { n: i32; }
block entry {
  cache.increment n;
  return;
}
)");
  auto first = sim.make_executor();
  auto second = sim.make_executor();
  first.step();
  first.step();
  second.step();
  BOOST_TEST(values<int32_t>(first, "n")[0] == 2);
  BOOST_TEST(values<int32_t>(second, "n")[0] == 1);
}

BOOST_AUTO_TEST_SUITE_END()
