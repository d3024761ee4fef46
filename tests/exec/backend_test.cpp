// Dispatch through a backend without host memory (upload/download), the CPU fallback for ops
// it lacks, and a kernel that reports failure.
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

const char* kAddMul = R"(
dynamic { x: f32[3]; }
constant { two: f32 @init(2.0); }
volatile {
  y: f32[3];
  z: f32[3];
}
block entry {
  op add(x, x) >> y;
  op mul(y, two) >> z;
  return z;
}
)";

}  // namespace

BOOST_AUTO_TEST_SUITE(backends)

BOOST_AUTO_TEST_CASE(device_memory_backend_with_cpu_fallback) {
  BOOST_TEST_REQUIRE(!devmem()->can_wrap_host_memory());
  oi::SimulatorOptions options;
  options.fallback = cpu();
  oi::Simulator sim(model(oi::ModelWriter()), oi::Graph::parse(kAddMul, "test.oi"), devmem(),
                    options);
  BOOST_TEST_REQUIRE(sim.warnings().size() == 1u);
  BOOST_TEST(contains(sim.warnings()[0], "test.oi:10:"));
  BOOST_TEST(contains(sim.warnings()[0], "backend 'devmem' lacks op 'mul'"));
  BOOST_TEST(contains(sim.warnings()[0], "runs on 'cpu'"));
  auto exec = sim.make_executor();
  for (float base : {1.0f, -3.0f}) {
    exec.insert("x", Tensor::from<float>({base, 2 * base, 0.5f}));
    exec.step();
    // (x + x) * 2 = 4x: add ran on devmem (uploaded, downloaded), mul on the CPU.
    BOOST_TEST(values<float>(exec, "z") == std::vector<float>({4 * base, 8 * base, 2}),
               tt::per_element());
  }
}

BOOST_AUTO_TEST_CASE(an_op_only_the_missing_fallback_has_is_rejected) {
  std::string msg = error_of([&] {
    oi::Simulator(model(oi::ModelWriter()), oi::Graph::parse(kAddMul, "test.oi"), devmem());
  });
  BOOST_TEST(contains(msg, "no loaded backend provides op 'mul' (f32, f32) -> f32"));
  BOOST_TEST(contains(msg, "tried 'devmem'"));
  BOOST_TEST(contains(msg, "test.oi:10:"));
}

BOOST_AUTO_TEST_CASE(a_failing_kernel_is_a_clear_error) {
  oi::Simulator sim(model(oi::ModelWriter()),
                    oi::Graph::parse(R"(
dynamic { x: f32[3]; }
volatile { y: f32[3]; }
block entry {
  op sub(x, x) >> y;
  return;
}
)",
                                     "test.oi"),
                    devmem());
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>({1, 2, 3}));
  std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "devmem: sub refuses to run"));
  BOOST_TEST(contains(msg, "op 'sub' failed on backend 'devmem'"));
  BOOST_TEST(!exec.in_step());
}

BOOST_AUTO_TEST_SUITE_END()
