// The Vulkan backend's faults, injected with OPENINFER_VULKAN_FAULT (plugins/vulkan/device.cpp):
// out of device memory at allocation and a lost device at transfers fail the step; persistent
// memory is as before it, the fault repeats cleanly while it lasts and the next step runs once
// it is gone (docs/runtime.md "Failed steps"). Exits 77 (CTest: skipped) without a Vulkan
// device.
#define BOOST_TEST_MODULE vulkan_fault
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <iostream>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

namespace tt = boost::test_tools;
using oi::Tensor;

namespace {

std::string plugin_dir() {
  const char* v = std::getenv("OPENINFER_TEST_PLUGIN_DIR");
  return v != nullptr && *v != '\0' ? v : PLUGIN_DIR;
}

const oi::PluginRegistry& registry() {
  static const oi::PluginRegistry r = oi::PluginRegistry::discover({plugin_dir()});
  return r;
}

// acc and H live in device memory; H's index jumps by 1000 a step, so its device table grows
// (a new buffer) in every step from the second on.
const char* kGraph = R"(
dynamic { x: f32[8]; }
persistent {
  n: i32 @init(0);
  acc: f32[8] @init(0.0);
  H(t): f32[8] @table;
}
block entry {
  op add(acc, x) >> acc;
  cache.write acc >> H[n];
  cache.increment 1000 n;
  return acc;
}
)";

std::vector<float> input(float s) {
  return {s, 2 * s, -s, 0.5f * s, s, 2 * s, -s, 0.5f * s};
}

std::vector<float> floats(const oi::Executor& exec, const char* name) {
  return exec.fetch<float>(name).data;
}

void check_fault(const char* fault, const std::string& message) {
  oi::SimulatorOptions options;
  options.fallback = registry().backend("cpu");
  oi::Simulator sim(oi::Model::from_bytes(oi::ModelWriter().to_bytes(), "empty.oinf"),
                    oi::Graph::parse(kGraph, "test.oi"), registry().backend("vulkan"), options);
  auto exec = sim.make_executor();
  auto step = [&](float s) {
    exec.insert("x", Tensor::from<float>(input(s)));
    exec.step();
  };
  step(1);
  step(2);
  setenv("OPENINFER_VULKAN_FAULT", fault, 1);
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      step(3);
      BOOST_FAIL("the injected fault did not fail the step");
    } catch (const oi::Error& e) {
      BOOST_TEST_MESSAGE(e.what());
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos);
    }
  }
  unsetenv("OPENINFER_VULKAN_FAULT");
  BOOST_TEST(exec.step_count() == 2u);
  BOOST_TEST(floats(exec, "acc") == input(3), tt::per_element());  // x1 + x2
  BOOST_TEST(exec.fetch<int32_t>("n").data == std::vector<int32_t>({2000}), tt::per_element());
  BOOST_TEST(exec.table_bytes() == 64u);
  step(3);
  BOOST_TEST(floats(exec, "acc") == input(6), tt::per_element());
  BOOST_TEST(exec.fetch<int32_t>("n").data == std::vector<int32_t>({3000}), tt::per_element());
  const auto h = floats(exec, "H");
  BOOST_TEST(h.size() == 2001u * 8u);
  BOOST_TEST(std::vector<float>(h.end() - 8, h.end()) == input(6), tt::per_element());
}

}  // namespace

BOOST_AUTO_TEST_CASE(out_of_device_memory) {
  check_fault("oom", "out of device memory");
}

BOOST_AUTO_TEST_CASE(device_lost) {
  check_fault("device_lost", "device lost");
}

int main(int argc, char* argv[]) {
  try {
    bool has_device = false;
    for (const auto& p : registry().plugins())
      has_device |= p.name == "vulkan" && !p.device_name.empty();
    if (!has_device) {
      std::cout << "SKIPPED: no Vulkan device\n";
      return 77;
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
}
