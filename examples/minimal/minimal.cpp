// The seeds' minimal example through the C++ API; `openinfer run examples/minimal/minimal.oi
// --model examples/minimal/model.oinf --input x=examples/minimal/input.oinf` does the same.
//
//   minimal_example [MODEL.oinf [GRAPH.oi [INPUT.oinf]]]   (defaults: examples/minimal/)
#include <exception>
#include <iostream>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

int main(int argc, char** argv) {
  const std::string dir = OPENINFER_SOURCE_DIR "/examples/minimal/";
  const std::string model_path = argc > 1 ? argv[1] : dir + "model.oinf";
  const std::string graph_path = argc > 2 ? argv[2] : dir + "minimal.oi";
  const std::string input_path = argc > 3 ? argv[3] : dir + "input.oinf";
  try {
    const oi::Model model = oi::Model::open(model_path);
    const oi::Graph graph = oi::Graph::load(graph_path);

    // The CPU backend plugin, found like the CLI finds it (OPENINFER_PLUGIN_PATH, the install,
    // the build tree).
    const auto registry =
        oi::PluginRegistry::discover(oi::plugin_search_path({}, OPENINFER_BUILD_PLUGIN_DIR));
    const oi::Simulator sim(model, graph, registry.backend("cpu"));
    oi::Executor exec = sim.make_executor();

    // x: f32[B], B from the model; the values come from a small input package.
    const oi::Model input = oi::Model::open(input_path);
    exec.insert("x", input.tensor("x"));
    exec.step();

    const auto y = exec.fetch<float>("y");
    std::cout << "B = " << model.size_of("B") << "\ny[0.." << y.size() << "] = [";
    for (size_t i = 0; i < y.size(); ++i) std::cout << (i ? ", " : "") << y[i];
    std::cout << "]\n";
    return 0;
  } catch (const oi::Error& e) {
    if (!e.where().empty()) std::cerr << e.where() << ": ";
    std::cerr << "error: " << e.what() << "\n" << e.context();
    return static_cast<int>(e.kind());
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
