// Executor overhead per node: one step of a chain of 10,000 adds of 16 f32 elements on the CPU
// plugin, so the time is almost all dispatch. Prints ns/node for step() with timing off and on.
#include <chrono>
#include <cstdio>
#include <string>

#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

int main(int argc, char** argv) {
  const int nodes = 10000;
  const int steps = argc > 1 ? std::stoi(argv[1]) : 20;
  std::string text =
      "dynamic { x: f32[16]; }\nconstant { one: f32[16] @init(1.0); }\n"
      "block entry {\n  assign t: f32[16];\n  op add(x, one) >> t;\n";
  for (int i = 1; i < nodes; ++i) text += "  op add(t, one) >> t;\n";
  text += "  return t;\n}\n";

  auto registry = oi::PluginRegistry::discover({OPENINFER_BENCH_PLUGIN_DIR});
  auto cpu = registry.backend("cpu");
  oi::ModelWriter writer;
  oi::Model model = oi::Model::from_bytes(writer.to_bytes(), "bench.oinf");
  oi::Simulator sim(model, oi::Graph::parse(text, "bench.oi"), cpu);
  auto exec = sim.make_executor();
  oi::Tensor x(oi::DType::f32, {16});

  for (bool timing : {false, true}) {
    exec.set_timing(timing);
    exec.insert("x", x);
    exec.step();  // warm-up: lazy loads, buffer wraps
    auto start = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) {
      exec.insert("x", x);
      exec.step();
    }
    double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    std::printf("timing %-3s: %.1f ns/node over %d steps of %d adds\n", timing ? "on" : "off",
                ns / (static_cast<double>(steps) * nodes), steps, nodes);
  }
  float last = exec.fetch<float>("t").data[0];
  std::printf("t[0] = %.0f (want %d)\n", last, nodes);
  return last == static_cast<float>(nodes) ? 0 : 1;
}
