// emit_plan PLUGIN_DIR PLAN.json [OUT_DIR]: hands a plan's JSON (as written, however broken) to
// the C emitter plugin found in PLUGIN_DIR, the way `openinfer synth` does after planning, and
// prints the emitter's message; with OUT_DIR, writes the files there. Exit 0: emitted (the files'
// names are printed); 1: the emitter's error; 2: usage or an unreadable file. For
// synth_c_invalid_plans (invalid_plans.py), which feeds hand-broken plans that the planner never
// produces, and fused_plan_test.py, which runs a plan fused by hand.
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "openinfer/plugin_host.hpp"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: emit_plan PLUGIN_DIR PLAN.json [OUT_DIR]\n";
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  if (!in) {
    std::cerr << "emit_plan: cannot read " << argv[2] << "\n";
    return 2;
  }
  std::ostringstream plan;
  plan << in.rdbuf();
  try {
    const auto registry = oi::PluginRegistry::discover({argv[1]});
    const auto emitter = registry.emitter("c");
    const auto files = emitter->emit({plan.str(), "{}", "model", "", {}, {}});
    for (const auto& f : files) {
      std::cout << f.path << "\n";
      if (argc != 4) continue;
      const std::filesystem::path to = std::filesystem::path(argv[3]) / f.path;
      std::filesystem::create_directories(to.parent_path());
      std::ofstream out(to, std::ios::binary);
      out << f.data;
      if (!out) {
        std::cerr << "emit_plan: cannot write " << to.string() << "\n";
        return 2;
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::cout << "error: " << e.what() << "\n";
    return 1;
  }
}
