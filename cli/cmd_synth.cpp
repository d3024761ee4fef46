// `openinfer synth GRAPH --model M --target T [--device FILE.json] [--plan-only] [--report]
// [-o OUTDIR]` (docs/cli.md, docs/synth.md): plans a validated graph for a device and hands the
// plan to the emitter plugin of the target, which returns the source files written to OUTDIR.
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "openinfer/device_arch.hpp"
#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_catalog.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/synth.hpp"

namespace oi::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

constexpr const char* kUsage =
    "Usage: openinfer synth GRAPH --model MODEL [--target c|glsl|NAME] [--device FILE.json]\n"
    "                       [--plan-only] [--report] [--name NAME] [--embed-weights] -o OUTDIR\n\n"
    "Validates GRAPH (.oi or .json) against MODEL, plans it for the device (fusion, memory,\n"
    "schedule; docs/synth.md) and has the emitter plugin of the target write source files to\n"
    "OUTDIR. The device is FILE.json (docs/devices.md) or the target's built-in description.\n"
    "--plan-only prints the plan's JSON form instead of emitting; --report prints fused groups,\n"
    "kernels, buffers and peak memory (to stderr with --plan-only), and what the emitter reports\n"
    "(for a freestanding device: flash, RAM and stack against its budgets).";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Graph load_graph(const std::string& path) {
  if (fs::path(path).extension() == ".json") return graph_from_json(read_text(path), path);
  return Graph::load(path);
}

int run_synth(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")("model,m", po::value<std::string>(),
                                                     "the model package (.oinf)")(
      "target,t", po::value<std::string>()->default_value("c"),
      "emitter target: c, glsl, or a plugin's target name")(
      "device,d", po::value<std::string>(), "device description JSON (docs/devices.md)")(
      "plan-only", "print the plan's JSON form; emit nothing")(
      "report", "print fused groups, kernels, buffers and peak memory")(
      "name", po::value<std::string>()->default_value("model"), "base name of the generated files")(
      "embed-weights", "embed the weights as arrays instead of loading the .oinf")(
      "output,o", po::value<std::string>(), "output directory");
  po::options_description hidden;
  hidden.add_options()("graph", po::value<std::string>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("graph", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    ctx.out << kUsage << "\n\n" << options;
    return 0;
  }
  if (!vm.count("graph")) usage_error("missing GRAPH (see --help)");
  if (!vm.count("model")) usage_error("missing --model MODEL (see --help)");
  const bool plan_only = vm.count("plan-only") > 0;
  if (!plan_only && !vm.count("output")) usage_error("missing -o OUTDIR (or --plan-only)");
  const std::string target = vm["target"].as<std::string>();

  DeviceArch arch;
  if (vm.count("device")) {
    arch = DeviceArch::load(vm["device"].as<std::string>());
  } else if (target == "c" || target == "glsl") {
    arch = DeviceArch::for_target(target);
  } else {
    usage_error("target '" + target + "' has no built-in device description: pass --device FILE");
  }
  for (const std::string& w : arch.warnings) ctx.err << "warning: " << w << "\n";

  const PluginRegistry registry =
      PluginRegistry::discover(plugin_search_path(ctx.plugin_dirs, OPENINFER_BUILD_PLUGIN_DIR));
  const OpCatalog catalog = catalog_with_plugins(registry);
  const std::string model_path = vm["model"].as<std::string>();
  const Model model = Model::open(model_path);
  const Plan plan =
      Synthesizer(arch).synthesize(model, load_graph(vm["graph"].as<std::string>()), catalog);

  if (plan_only) {
    if (vm.count("report")) ctx.err << plan.report();
    ctx.out << plan.to_json();
    return 0;
  }
  if (vm.count("report")) ctx.out << plan.report();
  EmitOptions emit{target, vm["name"].as<std::string>(), {}};
  if (vm.count("embed-weights")) emit.options.push_back("embed_weights=1");
  const fs::path dir = vm["output"].as<std::string>();
  const auto files = plan.emit(registry, dir, emit);
  ctx.out << "wrote " << files.size() << " files to " << dir.string() << "\n";
  // An emitter's own report (the C emitter's freestanding profile: flash, RAM and stack against
  // the device's budgets) is a file NAME.report.txt; --report prints it too.
  if (vm.count("report"))
    for (const auto& f : files)
      if (f.filename().string().size() > 11 && f.filename().string().ends_with(".report.txt"))
        ctx.out << read_text(f.string());
  return 0;
}

const CommandRegistration kSynth({"synth", "plan a graph for a device and emit C or GLSL source",
                                  run_synth});

}  // namespace
}  // namespace oi::cli
