// The emitter side of the plugin host: discovery by target, the plan crossing the ABI as JSON,
// plugin errors as oi::Error, refused file names, atomic writes under the output directory.
#define BOOST_TEST_MODULE emitter_host
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <span>
#include <sstream>

#include "openinfer/error.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/synth.hpp"

using namespace oi;

namespace {

PluginRegistry registry() {
  return PluginRegistry::discover({FIXTURE_EMITTER_DIR});
}

EmitRequest request(std::vector<std::string> options = {}) {
  return {"{\"format\": \"openinfer-synth-plan\"}",
          "{\"device\": {}}",
          "model",
          "m.oinf",
          std::move(options),
          {}};
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(emitter_is_found_by_target_and_listed) {
  auto r = registry();
  BOOST_TEST(r.emitter_targets() == std::vector<std::string>{"echo"});
  bool listed = false;
  for (const auto& p : r.plugins())
    if (p.kind == PluginKind::Emitter && p.name == "echo_emitter" && p.target_backend == "echo")
      listed = true;
  BOOST_TEST(listed);
  try {
    r.emitter("fortran");
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Environment));
    BOOST_TEST(std::string(e.what()) == "no emitter for target 'fortran'");
    BOOST_TEST(e.context().find("emitter targets found: echo") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(plan_crosses_and_files_come_back) {
  auto r = registry();
  auto files = r.emitter("echo")->emit(request());
  BOOST_REQUIRE(files.size() == 2u);
  BOOST_TEST(files[0].path == "model.plan.json");
  BOOST_TEST(files[0].data == request().plan_json);
  BOOST_TEST(files[1].path == "sub/model.device.json");
  BOOST_TEST(files[1].data == request().device_json);

  const std::filesystem::path dir = std::filesystem::path(TEST_WORK_DIR) / "emitted";
  std::filesystem::remove_all(dir);
  write_emitted_files(dir, files);
  BOOST_TEST(read(dir / "model.plan.json") == files[0].data);
  BOOST_TEST(read(dir / "sub" / "model.device.json") == files[1].data);
}

// ABI 3: the model's tensors travel with the request (the emitter never opens the model).
BOOST_AUTO_TEST_CASE(model_tensors_cross_with_the_request) {
  EmitRequest req = request({"tensors=1"});
  const std::string w = "abcdefgh", b = "xy";
  req.tensors.push_back({"w", OI_DTYPE_F32, {2, 1}, std::as_bytes(std::span(w.data(), w.size()))});
  req.tensors.push_back({"b", OI_DTYPE_U8, {2}, std::as_bytes(std::span(b.data(), b.size()))});
  auto files = registry().emitter("echo")->emit(req);
  BOOST_REQUIRE(files.size() == 3u);
  BOOST_TEST(files[2].path == "model.tensors.txt");
  BOOST_TEST(files[2].data == "w 10 [2,1] abcdefgh\nb 5 [2] xy\n");
}

BOOST_AUTO_TEST_CASE(plugin_errors_and_bad_names_are_errors) {
  auto emitter = registry().emitter("echo");
  try {
    emitter->emit(request({"fail=1"}));
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST(std::string(e.what()).find("op 'frobnicate' cannot be expressed") !=
               std::string::npos);
  }
  for (const char* bad :
       {"../escape.c", "/abs.c", "a//b.c", "sub/./x.c", "sp ace.c", "model.plan.json"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_CHECK_THROW(emitter->emit(request({std::string("path=") + bad})), Error);
    }
  }
  BOOST_CHECK_THROW(
      write_emitted_files(std::filesystem::path(TEST_WORK_DIR) / "x", {{"../up.c", "int x;"}}),
      Error);
}

BOOST_AUTO_TEST_CASE(plan_emit_writes_what_the_emitter_returns) {
  const std::string root = OPENINFER_SOURCE_DIR;
  const Plan plan = Synthesizer(DeviceArch::load(root + "/devices/x86_64_avx2.json"))
                        .synthesize(Model::open(root + "/examples/minimal/model.oinf"),
                                    Graph::load(root + "/examples/minimal/minimal.oi"));
  const std::filesystem::path dir = std::filesystem::path(TEST_WORK_DIR) / "plan_emit";
  std::filesystem::remove_all(dir);
  auto paths = plan.emit(registry(), dir, {"echo", "mini", {}});
  BOOST_REQUIRE(paths.size() == 2u);
  BOOST_TEST(paths[0] == dir / "mini.plan.json");
  BOOST_TEST(read(paths[0]) == plan.to_json());
  BOOST_TEST(read(paths[1]) == plan.device.to_json());
  // The default target of a CPU device is "c", which this registry lacks.
  try {
    plan.emit(registry(), dir);
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST(std::string(e.what()) == "no emitter for target 'c'");
  }
}
