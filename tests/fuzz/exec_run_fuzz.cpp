// libFuzzer entry point that runs small generated graphs (graph_generator.hpp) on the CPU
// backend: validation may reject a graph and a step may fail with oi::Error (an index past a
// table's bound, say), but nothing may crash, leak, hang or trip a sanitizer. Budgets keep each
// input cheap: sizes of at most 4 x 8 elements, at most 6 statements, one loop level and 3
// steps.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "fuzz_support.hpp"
#include "graph_generator.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

namespace {

// The CPU plugin of this build; OPENINFER_FUZZ_PLUGIN_DIR in the environment names another
// folder (a plugin built without instrumentation, say).
std::shared_ptr<oi::Backend> cpu() {
  static const oi::PluginRegistry registry = [] {
    const char* dir = std::getenv("OPENINFER_FUZZ_PLUGIN_DIR");
    return oi::PluginRegistry::discover({dir != nullptr ? dir : OPENINFER_FUZZ_PLUGIN_DIR});
  }();
  static const std::shared_ptr<oi::Backend> backend = registry.backend("cpu");
  return backend;
}

// OPENINFER_FUZZ_VERBOSE=1: print each generated graph and how far it got (for tuning the
// generator: most inputs should reach the executor).
void report(const oi_fuzz::GeneratedCase& c, const char* outcome) {
  static const bool verbose = std::getenv("OPENINFER_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "%s---- %s\n", c.graph.c_str(), outcome);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oi_fuzz::ByteReader in(data, size);
  oi_fuzz::GeneratedCase c = oi_fuzz::generate_case(in);
  std::unique_ptr<oi::Simulator> sim;
  try {
    sim = std::make_unique<oi::Simulator>(oi::Model::from_bytes(c.model.to_bytes(), "gen.oinf"),
                                          oi::Graph::parse(c.graph, "gen.oi"), cpu());
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);  // not a valid graph after all
    report(c, e.what());
    return 0;
  }
  auto exec = sim->make_executor();
  volatile uint64_t sink = 0;
  try {
    // Steps alternate between step() and node-by-node iterate() with timing, fetching the
    // outputs and the trace after each.
    for (size_t i = 0; i < c.xs.size(); ++i) {
      exec.insert("x", c.xs[i]);
      if (i % 2 == 0) {
        exec.step();
      } else {
        exec.set_timing(true);
        for (const oi::ExecEvent& ev : exec.iterate()) sink = sink + ev.node_index;
      }
      if (exec.in_step()) __builtin_trap();
      for (const auto& name : exec.outputs())
        sink = sink + oi_fuzz::touch(exec.fetch(name).bytes());
      sink = sink + exec.trace().size() + exec.step_count();
    }
    for (const auto& name : exec.declared_names())
      sink = sink + oi_fuzz::touch(exec.fetch(name).bytes());
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
    report(c, e.what());
    return 0;
  }
  report(c, "ran");
  return 0;
}
