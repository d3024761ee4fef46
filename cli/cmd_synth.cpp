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
#include "graph_files.hpp"
#include "graphviz.hpp"
#include "openinfer/device_arch.hpp"
#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_dot.hpp"
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
    "                       [--plan-only] [--report] [--svg DIR] [--name NAME] [--embed-weights]\n"
    "                       -o OUTDIR\n\n"
    "Validates GRAPH (.oi or .json) against MODEL, plans it for the device (fusion, memory,\n"
    "schedule; docs/synth.md) and has the emitter plugin of the target write source files to\n"
    "OUTDIR. The device is FILE.json (docs/devices.md) or the target's built-in description.\n"
    "--plan-only prints the plan's JSON form instead of emitting; --report prints fused groups,\n"
    "kernels, buffers and peak memory (to stderr with --plan-only), and what the emitter reports\n"
    "(for a freestanding device: flash, RAM and stack against its budgets). --svg DIR writes\n"
    "pictures of the plan to DIR: NAME.plan.dot and NAME.plan.svg (the graph with its fused\n"
    "kernels as coloured groups; rendered with Graphviz, Debian package graphviz) and\n"
    "NAME.memory.svg (arena offset against trace position, one rectangle per value).";

// NAME.plan.dot, NAME.plan.svg and NAME.memory.svg in `dir` (created when missing), each
// written atomically.
void write_pictures(const Plan& plan, const fs::path& dir, const std::string& name) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw input_error("cannot create '" + dir.string() + "': " + ec.message());
  const std::string dot = plan_to_dot(plan);
  const std::string svg = render_dot(dot, "svg");
  write_atomically((dir / (name + ".plan.dot")).string(), dot);
  write_atomically((dir / (name + ".plan.svg")).string(), svg);
  write_atomically((dir / (name + ".memory.svg")).string(), plan_memory_svg(plan));
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
      "svg", po::value<std::string>(),
      "write the plan's pictures (kernels, memory) to this folder")(
      "name", po::value<std::string>()->default_value("model"), "base name of the generated files")(
      "embed-weights", "embed the weights as arrays instead of loading the .oinf")(
      "fetchable", po::value<std::vector<std::string>>()->composing(),
      "keep this temporary (assign) after each step so that the program can fetch it "
      "(repeatable)")("output,o", po::value<std::string>(), "output directory");
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
  if (vm.count("svg")) require_graphviz();  // before any work: the message says what to install

  const PluginRegistry registry =
      PluginRegistry::discover(plugin_search_path(ctx.plugin_dirs, OPENINFER_BUILD_PLUGIN_DIR));
  const OpCatalog catalog = catalog_with_plugins(registry);
  const std::string model_path = vm["model"].as<std::string>();
  const Model model = Model::open(model_path);
  Synthesizer synthesizer(arch);
  if (vm.count("fetchable"))
    synthesizer.keep_temporaries(vm["fetchable"].as<std::vector<std::string>>());
  const Plan plan =
      synthesizer.synthesize(model, load_graph(vm["graph"].as<std::string>()), catalog);

  if (vm.count("svg"))
    write_pictures(plan, vm["svg"].as<std::string>(), vm["name"].as<std::string>());
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
        ctx.out << read_text_file(f.string());
  return 0;
}

const CommandRegistration kSynth({"synth", "plan a graph for a device and emit C or GLSL source",
                                  run_synth});

}  // namespace
}  // namespace oi::cli
