// Values stay in a device backend's memory between nodes and steps: only inserts, host reads
// (fetch, a CPU-fallback node, a cache operation) and host writes cross the bus. Checked on the
// "devmem" fixture backend, which counts its transfers.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

namespace {

std::shared_ptr<oi::Backend> devmem() {
  static oi::PluginRegistry registry = oi::PluginRegistry::discover({EXEC_FIXTURE_PLUGIN_DIR});
  static std::shared_ptr<oi::Backend> backend = registry.backend("devmem");
  return backend;
}

struct Transfers {
  uint64_t uploads = 0;
  uint64_t downloads = 0;
};

// The fixture's counters: it adds to them through DEVMEM_COUNTERS (device_memory_backend.cpp).
Transfers transfers() {
  static uint64_t counters[2] = {0, 0};
  static const bool set = [] {
    char at[32];
    std::snprintf(at, sizeof at, "%llx",
                  static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(counters)));
    return setenv("DEVMEM_COUNTERS", at, 1) == 0;
  }();
  BOOST_TEST_REQUIRE(set);
  return {counters[0], counters[1]};
}

oi::Simulator simulate_on_devmem(const std::string& graph) {
  oi::SimulatorOptions options;
  options.fallback = cpu();
  return oi::Simulator(model(oi::ModelWriter()), oi::Graph::parse(graph, "test.oi"), devmem(),
                       options);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_resident)

BOOST_AUTO_TEST_CASE(values_stay_on_the_device_between_nodes_and_steps) {
  auto sim = simulate_on_devmem(R"(
dynamic { x: f32[3]; }
constant { one: f32 @init(1.0); }
persistent {
  acc: f32[3];   // the sum of every step's y
  peak: f32[3];  // the largest y so far (max runs in place)
}
volatile {
  y: f32[3];
  z: f32[3];
}
block entry {
  op add(x, x) >> y;
  op add(y, one) >> y;     // output aliases an input: a buffer of its own, then kept
  op add(acc, y) >> acc;
  op max(peak, y) >> peak;
  op mul(acc, one) >> z;   // the CPU fallback: acc comes back to the host
  return z;
}
)");
  transfers();  // counting from here
  auto exec = sim.make_executor();
  std::vector<float> acc(3, 0.0f), peak(3, 0.0f);
  const std::vector<std::vector<float>> xs = {{1, -2, 0.5f}, {3, 0, -1}, {-4, 5, 2}, {0, 1, 1}};
  for (size_t s = 0; s < xs.size(); ++s) {
    exec.insert("x", Tensor::from<float>(xs[s]));
    const Transfers before = transfers();
    exec.step();
    const Transfers after = transfers();
    for (size_t i = 0; i < 3; ++i) {
      float y = 2 * xs[s][i] + 1;
      acc[i] += y;
      peak[i] = std::max(peak[i], y);
    }
    if (s > 0) {
      // In steady state only the inserted x goes up and only acc (for the CPU's mul) comes
      // down: y, one, acc and peak stayed in device memory.
      BOOST_TEST(after.uploads - before.uploads == 1u);
      BOOST_TEST(after.downloads - before.downloads == 1u);
    }
    BOOST_TEST(values<float>(exec, "z") == acc, tt::per_element());
    BOOST_TEST(values<float>(exec, "acc") == acc, tt::per_element());
    const Transfers fetched = transfers();
    BOOST_TEST(values<float>(exec, "peak") == peak, tt::per_element());  // downloads peak
    BOOST_TEST(transfers().downloads - fetched.downloads == 1u);
    BOOST_TEST(values<float>(exec, "peak") == peak, tt::per_element());  // now current
    BOOST_TEST(transfers().downloads - fetched.downloads == 1u);
  }
}

BOOST_AUTO_TEST_CASE(a_host_write_replaces_the_device_copy) {
  auto sim = simulate_on_devmem(R"(
dynamic { x: f32[3]; }
persistent { acc: f32[3]; }
block entry {
  op add(acc, x) >> acc;   // on the device
  cache.reset acc;         // the host writes zeros over it
  op add(acc, x) >> acc;   // must start from those zeros
  return acc;
}
)");
  auto exec = sim.make_executor();
  for (float base : {1.0f, 2.0f, -3.0f}) {
    exec.insert("x", Tensor::from<float>({base, 2 * base, 0.25f}));
    exec.step();
    BOOST_TEST(values<float>(exec, "acc") == std::vector<float>({base, 2 * base, 0.25f}),
               tt::per_element());
  }
}

BOOST_AUTO_TEST_CASE(an_inserted_value_replaces_the_device_copy) {
  auto sim = simulate_on_devmem(R"(
dynamic { x: f32[3]; }
volatile { y: f32[3]; }
block entry {
  op add(x, x) >> x;   // a dynamic written on the device, re-inserted every step
  op add(x, x) >> y;
  return y;
}
)");
  auto exec = sim.make_executor();
  for (float base : {1.0f, -0.5f}) {
    exec.insert("x", Tensor::from<float>({base, 0, 3}));
    exec.step();
    BOOST_TEST(values<float>(exec, "y") == std::vector<float>({4 * base, 0, 12}),
               tt::per_element());
    BOOST_TEST(values<float>(exec, "x") == std::vector<float>({2 * base, 0, 6}),
               tt::per_element());
  }
}

BOOST_AUTO_TEST_SUITE_END()
