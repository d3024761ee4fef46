// examples/gpt/gpt.oi on a tiny random GPT (2 layers, d = 64, 4 heads, vocab 256, fixtures from
// make_fixtures.sh) against PyTorch's logits and greedy tokens, on one backend; with `f16`,
// examples/gpt/gpt_f16.oi on the same model with f16 weights (tiny_f16_*):
//
//   gpt_test cpu|vulkan [f16] [Boost.Test arguments]
//
// The Vulkan backend runs the ops it has and the CPU backend the rest. Without a Vulkan device
// the program exits 77 (CTest: skipped).
#define BOOST_TEST_MODULE gpt
#define BOOST_TEST_NO_MAIN
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "gpt_check.hpp"
#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

namespace {

std::string g_backend = "cpu";
std::string g_graph = OPENINFER_SOURCE_DIR "/examples/gpt/gpt.oi";
const std::string kFixtures = OPENINFER_SOURCE_DIR "/tests/gpt/fixtures/";
std::string g_model = kFixtures + "tiny_model.oinf";
std::string g_reference = kFixtures + "tiny_reference.oinf";
constexpr uint64_t kSteps = 32;

const oi::PluginRegistry& registry() {
  static const oi::PluginRegistry r = oi::PluginRegistry::discover({OPENINFER_TEST_PLUGIN_DIR});
  return r;
}

oi::Simulator simulator(const oi::Model& model) {
  oi::SimulatorOptions opt;
  if (g_backend != "cpu") opt.fallback = registry().backend("cpu");
  return oi::Simulator(model, oi::Graph::load(g_graph), registry().backend(g_backend), opt);
}

std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("openinfer_gpt_test_" + g_backend + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

}  // namespace

BOOST_AUTO_TEST_CASE(decode_32_tokens_matches_pytorch) {
  const auto model = oi::Model::open(g_model);
  const auto ref = oi::Model::open(g_reference);
  const auto sim = simulator(model);
  auto exec = sim.make_executor();
  std::vector<int64_t> generated;
  for (uint64_t s = 0; s < kSteps; ++s) {
    exec.step();
    generated.push_back(exec.fetch<int64_t>("next")[0]);
  }
  const auto r =
      gpt::check_against_reference(exec.fetch("logits_at"), exec.fetch("tokens"), generated, ref);
  BOOST_TEST_MESSAGE(g_backend << ": " << r.report);
  BOOST_TEST(r.ok, r.report);
  // Every position and every greedy token of the fixture is compared (no near tie in it).
  BOOST_TEST(r.positions_compared == 8 + kSteps - 1);
  BOOST_TEST(r.tokens_compared == kSteps);
}

// Past the context the run stops with an error naming the table, the position and the bound.
BOOST_AUTO_TEST_CASE(steps_past_the_context_are_a_clear_error) {
  const auto model = oi::Model::open(g_model);
  const auto sim = simulator(model);
  auto exec = sim.make_executor();
  const uint64_t fits = model.size_of("T") - model.size_of("P") + 1;  // 33 steps
  for (uint64_t s = 0; s < fits; ++s) exec.step();
  std::string msg;
  try {
    exec.step();
  } catch (const oi::Error& e) {
    msg = e.what();
  }
  BOOST_TEST_MESSAGE(msg);
  BOOST_TEST(msg.find("tokens") != std::string::npos, msg);
  BOOST_TEST(msg.find("40") != std::string::npos, msg);
}

// `openinfer run --steps 32` decodes the same 32 tokens, and its trace-event file is a Chrome
// trace with one complete event per node.
BOOST_AUTO_TEST_CASE(openinfer_run_decodes_the_same_tokens) {
  const auto out = scratch("out.oinf"), trace = scratch("trace.json");
  std::ostringstream cmd;
  cmd << "'" << OPENINFER_CLI << "' run '" << g_graph << "' --model '" << g_model << "' --backend "
      << g_backend << " --plugin-dir '" << OPENINFER_TEST_PLUGIN_DIR << "' --steps " << kSteps
      << " --fetch next --fetch tokens --fetch logits_at -q --save '" << out.string()
      << "' --trace-events '" << trace.string() << "'";
  BOOST_TEST_REQUIRE(std::system(cmd.str().c_str()) == 0, cmd.str());

  const auto saved = oi::Model::open(out);
  std::vector<int64_t> generated;
  for (uint64_t s = 0; s < kSteps; ++s)
    generated.push_back(saved.tensor("next.step" + std::to_string(s)).get_int(0));
  const auto r = gpt::check_against_reference(saved.tensor("logits_at"), saved.tensor("tokens"),
                                              generated, oi::Model::open(g_reference));
  BOOST_TEST(r.ok, r.report);

  std::ifstream f(trace);
  const auto doc = boost::json::parse(std::string(std::istreambuf_iterator<char>(f), {}));
  uint64_t nodes = 0, attention = 0;
  for (const auto& ev : doc.at("traceEvents").as_array()) {
    const auto& o = ev.as_object();
    if (o.contains("cat") && o.at("cat") == "node") {
      ++nodes;
      attention += o.at("name") == "attention";
    }
  }
  // 2 layers: one over the whole prompt in step 0, then one per generated position.
  BOOST_TEST(attention == 2 * kSteps);
  BOOST_TEST(nodes > attention);
  std::filesystem::remove_all(out.parent_path());
}

int main(int argc, char* argv[]) {
  if (argc > 1 && argv[1][0] != '-') {
    g_backend = argv[1];
    for (int i = 1; i + 1 < argc; ++i) argv[i] = argv[i + 1];
    --argc;
  }
  if (argc > 1 && std::string(argv[1]) == "f16") {
    g_graph = OPENINFER_SOURCE_DIR "/examples/gpt/gpt_f16.oi";
    g_model = kFixtures + "tiny_f16_model.oinf";
    g_reference = kFixtures + "tiny_f16_reference.oinf";
    for (int i = 1; i + 1 < argc; ++i) argv[i] = argv[i + 1];
    --argc;
  }
  try {
    for (const auto& p : registry().plugins()) {
      if (p.name != g_backend) continue;
      if (!p.device_name.empty())
        return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
      std::cout << "SKIPPED: backend " << g_backend << " has no device (" << p.description << ")\n";
      return 77;
    }
    std::cerr << "backend '" << g_backend << "' did not load from " << OPENINFER_TEST_PLUGIN_DIR
              << "\n";
    for (const auto& s : registry().skipped()) std::cerr << s.path << ": " << s.detail << "\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
  }
  return 1;
}
