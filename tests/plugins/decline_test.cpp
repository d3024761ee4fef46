#define BOOST_TEST_MODULE plugins_decline
// Kernels that decline a call (OI_STATUS_DECLINED, plugin ABI 2): the executor runs that call on
// its fallback backend, per call, and says where each node ran in the events, the --trace JSON,
// the trace events and the --timer table. fixtures/picky_backend.cpp declines `add` above 8
// elements and `sub` when its first input starts negative; `mul` it always runs.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"
#include "openinfer/trace_events.hpp"
#include "plugin_test_support.hpp"

using namespace plugin_test;
using oi::Tensor;
namespace tt = boost::test_tools;

namespace {

// picky alone in a folder, then the build tree's CPU plugin; opened once.
const fs::path& picky_dir() {
  static const fs::path dir = [] {
    fs::path d = fresh_dir("picky");
    copy_into(d, fixture("picky_backend"));
    return d;
  }();
  return dir;
}

oi::PluginRegistry& registry() {
  static oi::PluginRegistry r = oi::PluginRegistry::discover({picky_dir(), cpu_plugin_dir()});
  return r;
}

const char* kGraph = R"(
dynamic { x: f32[B]; }
volatile {
  a: f32[B];
  y: f32[B] @init(5.0);
}
block entry {
  assign t0: f32[B];
  op OP(x, a) >> t0;
  op mul(y, t0) >> y;
  return y;
}
)";

std::vector<float> iota(size_t n, float start) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

oi::Model model(size_t n) {
  oi::ModelWriter w;
  w.add_sizevar("B", n);
  w.add_tensor("a", Tensor::from<float>(iota(n, 0.5f)));
  return oi::Model::from_bytes(w.to_bytes(), "test.oinf");
}

oi::Simulator simulate(size_t n, const std::string& op, bool fallback = true) {
  std::string text = kGraph;
  text.replace(text.find("OP"), 2, op);
  oi::SimulatorOptions options;
  if (fallback) options.fallback = registry().backend("cpu");
  return oi::Simulator(model(n), oi::Graph::parse(text, "test.oi"), registry().backend("picky"),
                       options);
}

// y = 5 * (x OP a), in f32 as the kernels compute it.
std::vector<float> expected(const std::vector<float>& x, bool sub) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float a = 0.5f + static_cast<float>(i);
    y[i] = 5.0f * (sub ? x[i] - a : x[i] + a);
  }
  return y;
}

const oi::ExecEvent& op_event(const oi::Executor& exec, std::string_view op) {
  for (const auto& ev : exec.events())
    if (ev.kind == oi::NodeKind::Op && ev.op_name == op) return ev;
  BOOST_FAIL("no event for op " << op);
  return exec.events().front();
}

const boost::json::object& trace_op(const boost::json::array& trace, std::string_view op) {
  for (const auto& v : trace) {
    const auto& o = v.as_object();
    if (o.at("kind").as_string() == "OpExecute" && o.at("op_name").as_string() == op) return o;
  }
  BOOST_FAIL("no trace event for op " << op);
  return trace.front().as_object();
}

bool contains(const std::string& text, const std::string& part) {
  const bool found = text.find(part) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("'" << part << "' not in: " << text);
  return found;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_declined_call_runs_on_the_fallback_and_the_events_say_so) {
  const auto sim = simulate(16, "add");  // 16 elements: picky's add declines
  auto exec = sim.make_executor();
  for (int step = 0; step < 2; ++step) {
    const std::vector<float> x = iota(16, -3.0f + static_cast<float>(step));
    exec.insert("x", Tensor::from<float>(x));
    exec.step();
    BOOST_TEST(exec.fetch<float>("y").data == expected(x, false), tt::per_element());
    const oi::ExecEvent& add = op_event(exec, "add");
    BOOST_TEST(add.backend == "cpu");
    BOOST_TEST(add.declined_by == "picky");
    BOOST_TEST(add.decline_reason == "picky: add takes at most 8 elements");
    const oi::ExecEvent& mul = op_event(exec, "mul");
    BOOST_TEST(mul.backend == "picky");
    BOOST_TEST(mul.declined_by.empty());
    BOOST_TEST(mul.decline_reason.empty());
  }

  const boost::json::array trace = exec.trace();
  const auto& add = trace_op(trace, "add");
  BOOST_TEST(add.at("backend").as_string() == "cpu");
  BOOST_TEST(add.at("declined_by").as_string() == "picky");
  BOOST_TEST(add.at("decline_reason").as_string() == "picky: add takes at most 8 elements");
  const auto& mul = trace_op(trace, "mul");
  BOOST_TEST(mul.at("backend").as_string() == "picky");
  BOOST_TEST(!mul.contains("declined_by"));
  // Nodes that are not ops ran on no backend.
  for (const auto& v : trace)
    if (v.as_object().at("kind").as_string() != "OpExecute")
      BOOST_TEST(!v.as_object().contains("backend"));

  const boost::json::object doc = oi::trace_events_to_json(exec.events());
  int seen = 0;
  for (const auto& v : doc.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (e.at("ph").as_string() != "X" || e.at("name").as_string() != "add") continue;
    const auto& args = e.at("args").as_object();
    BOOST_TEST(args.at("backend").as_string() == "cpu");
    BOOST_TEST(args.at("declined_by").as_string() == "picky");
    ++seen;
  }
  BOOST_TEST(seen == 1);
}

BOOST_AUTO_TEST_CASE(within_the_limit_the_backend_runs_the_node_itself) {
  const auto sim = simulate(8, "add");
  auto exec = sim.make_executor();
  const std::vector<float> x = iota(8, 1.25f);
  exec.insert("x", Tensor::from<float>(x));
  exec.step();
  BOOST_TEST(exec.fetch<float>("y").data == expected(x, false), tt::per_element());
  BOOST_TEST(op_event(exec, "add").backend == "picky");
  BOOST_TEST(op_event(exec, "add").declined_by.empty());
}

// Declines are per call: the node is not pinned to the fallback after one.
BOOST_AUTO_TEST_CASE(a_decline_holds_for_its_call_only) {
  // 5 elements: 20 bytes, above kHostOpBytes, so the sub does not run on the host anyway.
  const auto sim = simulate(5, "sub");
  auto exec = sim.make_executor();
  const std::vector<std::vector<float>> xs = {{1, 2, 3, 4, 5}, {-1, 2, 3, 4, 5}, {2, -2, 3, 4, 5}};
  const std::vector<std::string> ran_on = {"picky", "cpu", "picky"};
  for (size_t step = 0; step < xs.size(); ++step) {
    exec.insert("x", Tensor::from<float>(xs[step]));
    exec.step();
    BOOST_TEST(exec.fetch<float>("y").data == expected(xs[step], true), tt::per_element());
    const oi::ExecEvent& sub = op_event(exec, "sub");
    BOOST_TEST(sub.backend == ran_on[step]);
    BOOST_TEST((sub.declined_by == "picky") == (ran_on[step] == "cpu"));
  }
}

BOOST_AUTO_TEST_CASE(without_a_fallback_a_decline_is_an_error_naming_backend_op_and_reason) {
  const auto sim = simulate(16, "add", false);
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>(iota(16, 0)));
  try {
    exec.step();
    BOOST_FAIL("no error");
  } catch (const oi::Error& e) {
    BOOST_TEST((e.kind() == oi::ErrorKind::Input));
    const std::string what = e.what();
    BOOST_TEST(contains(what, "test.oi:"));
    BOOST_TEST(contains(what,
                        "backend 'picky' declined op 'add': picky: add takes at most 8 "
                        "elements; no fallback backend is loaded to run it"));
  }
}

// Backend::run alone: a decline is a KernelDeclined error naming the backend, op and reason.
BOOST_AUTO_TEST_CASE(backend_run_reports_a_decline_as_kernel_declined) {
  auto picky = registry().backend("picky");
  const oi::DType f32 = oi::DType::f32;
  const oi::Kernel* add =
      picky->find_kernel("add", std::vector{f32, f32}, f32, oi::KernelMode::Normal);
  BOOST_REQUIRE(add);
  BOOST_TEST(add->abi_version == 3u);
  std::vector<uint64_t> dims{9};
  auto a = picky->alloc(36), b = picky->alloc(36), y = picky->alloc(36);
  oi::TensorArg ins[] = {{f32, dims, a.get(), 0}, {f32, dims, b.get(), 0}};
  oi::TensorArg outs[] = {{f32, dims, y.get(), 0}};
  try {
    picky->run(*add, ins, outs, {});
    BOOST_FAIL("no decline");
  } catch (const oi::KernelDeclined& e) {
    BOOST_TEST(e.backend() == "picky");
    BOOST_TEST(e.op() == "add");
    BOOST_TEST(e.reason() == "picky: add takes at most 8 elements");
    BOOST_TEST(std::string(e.what()) ==
               "backend 'picky' declined op 'add': picky: add takes at most 8 elements");
  }
}

// oi_host_api.log: the message reaches the installed sink with the plugin's name.
BOOST_AUTO_TEST_CASE(plugin_messages_go_through_the_host_log_sink) {
  std::vector<std::string> got;
  oi::PluginLogSink previous = oi::set_plugin_log_sink([&](const oi::PluginLogMessage& m) {
    got.push_back(std::string(m.plugin) + "|" + std::string(oi::log_level_name(m.level)) + "|" +
                  std::string(m.message));
  });
  {
    auto fresh = oi::PluginRegistry::discover({picky_dir()});
    fresh.backend("picky");  // opening the device logs a warning
  }
  oi::set_plugin_log_sink(std::move(previous));
  BOOST_TEST(
      got == std::vector<std::string>{"picky|warning|a test backend that declines some calls"},
      tt::per_element());
}

// The CLI: --backend picky with the CPU fallback; the warning on stderr, the values, the
// timing table, --trace and --trace-events all name both backends for the declined add.
BOOST_AUTO_TEST_CASE(the_cli_trace_and_timer_show_where_each_node_ran) {
  const fs::path work = fresh_dir("picky_cli");
  const std::string minimal = std::string(EXAMPLES_DIR) + "/minimal";
  const std::string command = std::string(OPENINFER_CLI) + " --plugin-dir " + picky_dir().string() +
                              " run " + minimal + "/minimal.oi --model " + minimal +
                              "/model.oinf --input x=" + minimal + "/input.oinf --backend picky" +
                              " --timer --trace " + (work / "trace.json").string() +
                              " --trace-events " + (work / "events.json").string() + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  BOOST_REQUIRE(pipe);
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = pclose(pipe);
  BOOST_TEST_MESSAGE(output);
  BOOST_REQUIRE(WEXITSTATUS(status) == 0);
  BOOST_TEST(contains(output, "plugin 'picky': warning: a test backend that declines some calls"));
  BOOST_TEST(contains(output, "y: f32[16] = { 19.662, 261.2162, 10.0, 16.25, 32.5,"));
  // The timing table's last column: where each op ran.
  std::istringstream lines(output);
  std::string line, add_row, mul_row;
  while (std::getline(lines, line)) {
    if (line.find("  add  ") != std::string::npos) add_row = line;
    if (line.find("  mul  ") != std::string::npos) mul_row = line;
  }
  BOOST_TEST(add_row.ends_with("  cpu (declined by picky)"));
  BOOST_TEST(mul_row.ends_with("  picky"));

  const auto trace = boost::json::parse(read_file(work / "trace.json")).as_array();
  BOOST_TEST(trace_op(trace, "add").at("backend").as_string() == "cpu");
  BOOST_TEST(trace_op(trace, "add").at("declined_by").as_string() == "picky");
  BOOST_TEST(trace_op(trace, "mul").at("backend").as_string() == "picky");
  const auto events = boost::json::parse(read_file(work / "events.json")).as_object();
  bool add_seen = false;
  for (const auto& v : events.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (e.at("ph").as_string() != "X" || e.at("name").as_string() != "add") continue;
    add_seen = true;
    BOOST_TEST(e.at("args").as_object().at("declined_by").as_string() == "picky");
    BOOST_TEST(e.at("args").as_object().at("backend").as_string() == "cpu");
  }
  BOOST_TEST(add_seen);
}
