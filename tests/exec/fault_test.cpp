// Faults at the plugin boundary (docs/runtime.md "Failed steps"): a backend plugin whose kernel
// reports an error or throws, or whose allocation gives no buffer or runs out of memory, fails
// the step; persistent memory is as before it, the fault repeats cleanly while it lasts, the
// next step runs once it is gone, and every plugin buffer is freed with the executor. The
// "faulty" fixture (tests/plugins/fixtures/faulty_backend.cpp) injects what FAULTY_MODE says.
#include <cstdio>
#include <cstdlib>

#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

namespace {

std::shared_ptr<oi::Backend> faulty() {
  static oi::PluginRegistry registry = oi::PluginRegistry::discover({EXEC_FIXTURE_PLUGIN_DIR});
  static std::shared_ptr<oi::Backend> backend = registry.backend("faulty");
  return backend;
}

// The fixture's count of its live buffers (FAULTY_COUNTERS).
int64_t& live_buffers() {
  static int64_t live = 0;
  static const bool set = [] {
    char at[32];
    std::snprintf(at, sizeof at, "%llx",
                  static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(&live)));
    return setenv("FAULTY_COUNTERS", at, 1) == 0;
  }();
  BOOST_TEST_REQUIRE(set);
  return live;
}

struct FaultMode {
  explicit FaultMode(const char* mode) { setenv("FAULTY_MODE", mode, 1); }
  ~FaultMode() { unsetenv("FAULTY_MODE"); }
};

// acc and H live in the fixture's memory. H's index jumps by 1000 a step, so the device table
// grows (a new buffer) in every step from the second on.
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

// Step s's input; f32[8] is above the size up to which ops run on the host (16 bytes).
std::vector<float> input(float s) {
  return {s, 2 * s, -s, 0.5f * s, s, 2 * s, -s, 0.5f * s};
}

void check_fault(const char* mode, const std::string& message) {
  live_buffers();
  {
    oi::SimulatorOptions options;
    options.fallback = cpu();
    oi::Simulator sim(model(oi::ModelWriter()), oi::Graph::parse(kGraph, "test.oi"), faulty(),
                      options);
    auto exec = sim.make_executor();
    for (float s = 1; s <= 2; ++s) {
      exec.insert("x", Tensor::from<float>(input(s)));
      exec.step();
    }
    auto third_step = [&] {
      exec.insert("x", Tensor::from<float>(input(3)));
      exec.step();
    };
    {
      FaultMode fault(mode);
      BOOST_TEST(contains(error_of(third_step), message));
      BOOST_TEST(contains(error_of(third_step), message));  // repeats cleanly
    }
    // As after step 2: acc = x1 + x2 (= input(3)), H[0] = x1, H[1000] = x1 + x2, n = 2000.
    BOOST_TEST(exec.step_count() == 2u);
    BOOST_TEST(values<float>(exec, "acc") == input(3), tt::per_element());
    BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({2000}), tt::per_element());
    BOOST_TEST(exec.table_bytes() == 64u);
    Tensor h = exec.fetch("H");
    BOOST_TEST(h.shape() == oi::Shape({1001, 8}), tt::per_element());
    auto all = h.as<float>();
    BOOST_TEST(std::vector<float>(all.begin(), all.begin() + 8) == input(1), tt::per_element());
    BOOST_TEST(std::vector<float>(all.begin() + 8000, all.end()) == input(3), tt::per_element());
    // The fault is gone: the step runs from the restored memory.
    third_step();
    BOOST_TEST(values<float>(exec, "acc") == input(6), tt::per_element());
    BOOST_TEST(values<int32_t>(exec, "n") == std::vector<int32_t>({3000}), tt::per_element());
    BOOST_TEST(exec.table_bytes() == 96u);
  }
  BOOST_TEST(live_buffers() == 0);  // every plugin buffer freed with the executor
}

}  // namespace

BOOST_AUTO_TEST_SUITE(plugin_faults)

BOOST_AUTO_TEST_CASE(kernel_reports_an_error) {
  check_fault("error", "faulty: injected kernel error");
}

BOOST_AUTO_TEST_CASE(kernel_throws) {
  check_fault("throw", "faulty: injected exception");
}

BOOST_AUTO_TEST_CASE(allocation_gives_no_buffer) {
  check_fault("null", "gave no buffer");
}

BOOST_AUTO_TEST_CASE(allocation_runs_out_of_memory) {
  check_fault("oom", "faulty: injected out of memory");
}

BOOST_AUTO_TEST_SUITE_END()
