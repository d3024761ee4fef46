// libFuzzer entry point that runs small generated graphs (graph_generator.hpp) on the CPU
// backend, or on the device-memory fixture with the CPU as fallback: validation may reject a
// graph and a step may fail with oi::Error (an index past a table's bound, a table budget), but
// nothing may crash, leak, hang or trip a sanitizer, and a failed step leaves the executor
// usable (the next steps run). Budgets keep each input cheap: sizes of at most 4 x 8 elements,
// at most 8 statements, loops two deep over at most 4 iterations, 4 steps.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "fuzz_support.hpp"
#include "graph_generator.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

namespace {

// The CPU plugin of this build; OPENINFER_FUZZ_PLUGIN_DIR in the environment names another
// folder (a plugin built without instrumentation, say). The "devmem" fixture
// (tests/exec/fixtures/device_memory_backend.cpp) keeps values in its own memory.
const oi::PluginRegistry& registry() {
  static const oi::PluginRegistry plugins = [] {
    const char* dir = std::getenv("OPENINFER_FUZZ_PLUGIN_DIR");
    return oi::PluginRegistry::discover(
        {dir != nullptr ? dir : OPENINFER_FUZZ_PLUGIN_DIR, OPENINFER_FUZZ_FIXTURE_DIR});
  }();
  return plugins;
}

std::shared_ptr<oi::Backend> cpu() {
  static const std::shared_ptr<oi::Backend> backend = registry().backend("cpu");
  return backend;
}

std::shared_ptr<oi::Backend> devmem() {
  static const std::shared_ptr<oi::Backend> backend = registry().backend("devmem");
  return backend;
}

// OPENINFER_FUZZ_VERBOSE=1: print each generated graph and how far it got (for tuning the
// generator: most inputs should reach the executor).
void report(const oi_fuzz::GeneratedCase& c, const char* outcome) {
  static const bool verbose = std::getenv("OPENINFER_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "%s---- %s\n", c.graph.c_str(), outcome);
}

// Runs step `i` of the case the way its mode says.
void run_step(oi::Executor& exec, const oi_fuzz::GeneratedCase& c, size_t i,
              volatile uint64_t& sink) {
  exec.insert("x", c.xs[i]);
  switch (c.modes[i]) {
    case oi_fuzz::StepMode::step:
      exec.step();
      break;
    case oi_fuzz::StepMode::iterate:
      exec.set_timing(true);
      for (const oi::ExecEvent& ev : exec.iterate()) sink = sink + ev.node_index;
      exec.set_timing(false);
      break;
    case oi_fuzz::StepMode::iterate_part: {
      // Leave the step open after a few events, read a value mid-step, let step() finish it.
      size_t seen = 0;
      for (const oi::ExecEvent& ev : exec.iterate()) {
        sink = sink + ev.node_index;
        if (++seen > c.part_events) break;
      }
      sink = sink + oi_fuzz::touch(exec.fetch("acc").bytes());
      exec.step();
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oi_fuzz::ByteReader in(data, size);
  oi_fuzz::GeneratedCase c = oi_fuzz::generate_case(in);
  std::unique_ptr<oi::Simulator> sim;
  try {
    oi::SimulatorOptions options;
    options.max_table_bytes = c.max_table_bytes;
    if (c.device_memory) options.fallback = cpu();
    sim = std::make_unique<oi::Simulator>(oi::Model::from_bytes(c.model.to_bytes(), "gen.oinf"),
                                          oi::Graph::parse(c.graph, "gen.oi"),
                                          c.device_memory ? devmem() : cpu(), std::move(options));
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);  // not a valid graph after all
    report(c, e.what());
    return 0;
  }
  auto exec = sim->make_executor();
  volatile uint64_t sink = 0;
  std::string outcome = "ran";
  // A failed step (oi::Error) must leave the executor between steps and usable: the next step
  // runs, and every value can be fetched.
  for (size_t i = 0; i < c.xs.size(); ++i) {
    try {
      run_step(exec, c, i, sink);
      for (const auto& name : exec.outputs())
        sink = sink + oi_fuzz::touch(exec.fetch(name).bytes());
    } catch (const oi::Error& e) {
      oi_fuzz::check_message(e);
      outcome = e.what();
    }
    if (exec.in_step()) __builtin_trap();
    if (c.max_table_bytes != 0 && exec.table_bytes() > c.max_table_bytes) __builtin_trap();
    sink = sink + exec.trace().size() + exec.step_count();
  }
  for (const auto& name : exec.declared_names()) {
    try {
      sink = sink + oi_fuzz::touch(exec.fetch(name).bytes());
    } catch (const oi::Error& e) {  // a prefix table cannot be fetched whole
      oi_fuzz::check_message(e);
    }
  }
  report(c, outcome.c_str());
  return 0;
}
