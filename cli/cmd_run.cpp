// `openinfer run GRAPH --model MODEL [options]` (cli.md): builds a simulator on a backend plugin,
// runs steps with inputs from OINF files, prints or saves fetched values, writes traces.
#include <algorithm>
#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"
#include "openinfer/model.hpp"
#include "openinfer/op_catalog.hpp"
#include "openinfer/plugin_catalog.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"
#include "openinfer/trace_events.hpp"
#include "openinfer/validate.hpp"
#include "run_inputs.hpp"
#include "run_report.hpp"

namespace oi::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kRunUsage =
    "Usage: openinfer run GRAPH --model MODEL [options]\n\n"
    "Builds a simulator for GRAPH (a .oi DSL file or a .json serialized graph) and MODEL (an\n"
    "OINF package) on a backend plugin and runs inference steps. Before each step every --input\n"
    "is inserted; after it every --fetch (default: the names of entry's `return`) is printed.\n"
    "Exit codes: 0 ok, 1 bad input (validation, a failed op, a bad file), 2 usage,\n"
    "3 the backend is missing or cannot load.";

struct RunOptions {
  std::string graph, model, backend = "cpu";
  uint64_t steps = 1;
  uint64_t max_table_bytes = 0;  // 0: no limit
  std::vector<InputSpec> inputs;
  std::vector<std::string> fetch;
  std::string save, trace, trace_events;
  bool timer = false, quiet = false;
};

std::optional<RunOptions> parse_options(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")("model,m", po::value<std::string>(),
                                                     "the model package (.oinf); required")(
      "backend", po::value<std::string>()->default_value("cpu"), "backend plugin to run on")(
      "steps", po::value<int64_t>()->default_value(1),
      "run N steps (persistent memory carries over)")(
      "max-table-bytes", po::value<int64_t>()->default_value(0),
      "fail a step whose table writes would make the tables hold more than N bytes (0: no "
      "limit)")(
      "input", po::value<std::vector<std::string>>(),
      "NAME=FILE or NAME=FILE:TENSOR: insert before each step ({step} in TENSOR is the step "
      "number; a step whose tensor FILE lacks inserts nothing); repeatable")(
      "fetch", po::value<std::vector<std::string>>(),
      "fetch this variable after each step (repeatable; default: entry's `return` names)")(
      "save", po::value<std::string>(), "write the fetched values to this OINF file")(
      "trace", po::value<std::string>(), "write the execution trace (JSON array of node events)")(
      "trace-events", po::value<std::string>(),
      "write the events in the Chrome trace-event format (Perfetto, chrome://tracing)")(
      "timer", "record per-node timings in the trace and print a timing table")(
      "quiet,q", "print nothing but errors");
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
    ctx.out << kRunUsage << "\n\n" << options;
    return std::nullopt;
  }
  if (!vm.count("graph")) usage_error("missing GRAPH (see `openinfer run --help`)");
  if (!vm.count("model")) usage_error("missing --model MODEL (see `openinfer run --help`)");
  RunOptions o;
  o.graph = vm["graph"].as<std::string>();
  o.model = vm["model"].as<std::string>();
  o.backend = vm["backend"].as<std::string>();
  const int64_t steps = vm["steps"].as<int64_t>();
  if (steps < 1) usage_error("--steps must be at least 1 (got " + std::to_string(steps) + ")");
  o.steps = static_cast<uint64_t>(steps);
  const int64_t max_table_bytes = vm["max-table-bytes"].as<int64_t>();
  if (max_table_bytes < 0) {
    usage_error("--max-table-bytes must not be negative (got " + std::to_string(max_table_bytes) +
                ")");
  }
  o.max_table_bytes = static_cast<uint64_t>(max_table_bytes);
  if (vm.count("input"))
    for (const auto& s : vm["input"].as<std::vector<std::string>>())
      o.inputs.push_back(parse_input_spec(s));
  if (vm.count("fetch"))
    for (const auto& f : vm["fetch"].as<std::vector<std::string>>())
      if (std::find(o.fetch.begin(), o.fetch.end(), f) == o.fetch.end()) o.fetch.push_back(f);
  if (vm.count("save")) o.save = vm["save"].as<std::string>();
  if (vm.count("trace")) o.trace = vm["trace"].as<std::string>();
  if (vm.count("trace-events")) o.trace_events = vm["trace-events"].as<std::string>();
  o.timer = vm.count("timer") > 0;
  o.quiet = vm.count("quiet") > 0;
  return o;
}

Graph load_graph(const std::string& path) {
  if (std::filesystem::path(path).extension() != ".json") return Graph::load(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return graph_from_json(text.str(), path);
}

void check_fetch_names(const std::vector<std::string>& fetch, const Executor& exec) {
  const std::vector<std::string> declared = exec.declared_names();
  for (const std::string& name : fetch) {
    if (std::find(declared.begin(), declared.end(), name) != declared.end()) continue;
    std::string list = "  declared:";
    for (const std::string& d : declared) list += " " + d;
    throw input_error("--fetch " + name + ": the graph declares no variable '" + name + "'")
        .with_context(list);
  }
}

// Events copied out of a step; their string views point into the simulator's graph.
std::vector<ExecEvent> without_times(std::vector<ExecEvent> events) {
  for (ExecEvent& e : events) e.start_ns = e.end_ns = 0;
  return events;
}

int run_run(const std::vector<std::string>& args, Context& ctx) {
  const std::optional<RunOptions> parsed = parse_options(args, ctx);
  if (!parsed) return 0;
  const RunOptions& o = *parsed;

  const Graph graph = load_graph(o.graph);
  const Model model = Model::open(o.model);
  const StepInputs inputs(o.inputs);
  const PluginRegistry registry =
      PluginRegistry::discover(plugin_search_path(ctx.plugin_dirs, OPENINFER_BUILD_PLUGIN_DIR));
  // Plugins' new ops validate and run like builtin ones; a bad schema stops the run (exit 1).
  const OpCatalog catalog = catalog_with_plugins(registry);

  // Validate here for FILE:LINE:COL messages, one per line, like `graph check`.
  const Diagnostics diag = validate_against_model(graph, catalog, model);
  if (!diag.ok()) {
    ctx.err << diag.format();
    return 1;
  }

  SimulatorOptions sim_options;
  sim_options.catalog = &catalog;
  sim_options.max_table_bytes = o.max_table_bytes;
  std::shared_ptr<Backend> backend = registry.backend(o.backend);  // exit 3 when missing
  if (o.backend != "cpu") {
    const auto names = registry.backend_names();
    if (std::find(names.begin(), names.end(), "cpu") != names.end())
      sim_options.fallback = registry.backend("cpu");
  }
  // Backends that scopes name in `placement` (dsl.md "Scopes"); one not found is the
  // simulator's warning, and its nodes stay on --backend.
  const auto names = registry.backend_names();
  for (const Block& block : graph.blocks) {
    for (size_t i = 0; i < block.scopes.size(); ++i) {
      const std::string placement = scope_hints(block, static_cast<int32_t>(i)).placement;
      if (placement.empty() || placement == o.backend) continue;
      if (std::find(names.begin(), names.end(), placement) == names.end()) continue;
      sim_options.placements.push_back(registry.backend(placement));
    }
  }
  const Simulator sim(model, graph, backend, sim_options);
  if (!o.quiet) {
    for (const auto& w : sim.warnings()) ctx.err << w << "\n";
  }

  Executor exec = sim.make_executor();
  check_fetch_names(o.fetch, exec);
  const bool keep_events = o.timer || !o.trace.empty() || !o.trace_events.empty();
  exec.set_timing(o.timer || !o.trace_events.empty());

  std::vector<ExecEvent> events;
  std::vector<FetchedValue> fetched;
  for (uint64_t step = 0; step < o.steps; ++step) {
    inputs.insert_for_step(exec, step);
    exec.step();
    if (keep_events) events.insert(events.end(), exec.events().begin(), exec.events().end());
    const std::vector<std::string>& names = o.fetch.empty() ? exec.outputs() : o.fetch;
    if (!o.quiet)
      ctx.out << "step " << step << ":" << (names.empty() ? " (no outputs)" : "") << "\n";
    for (const std::string& name : names) {
      Tensor value = exec.fetch(name);
      if (!o.quiet) ctx.out << "  " << summarize(name, value) << "\n";
      if (!o.save.empty()) fetched.push_back({step, name, std::move(value)});
    }
  }

  if (o.timer && !o.quiet) print_timing_table(ctx.out, events, o.steps);
  // Outputs only after every step succeeded: a failed run leaves no files behind.
  if (!o.save.empty()) save_fetched(o.save, fetched, o.steps);
  if (!o.trace.empty()) {
    // Without --timer the trace's micros are zeros (cli.md), even when --trace-events timed.
    const auto json = o.timer ? trace_to_json(events) : trace_to_json(without_times(events));
    write_file_atomically(o.trace, boost::json::serialize(json) + "\n");
  }
  if (!o.trace_events.empty())
    write_file_atomically(o.trace_events,
                          boost::json::serialize(trace_events_to_json(events)) + "\n");
  return 0;
}

const CommandRegistration kRegistration{
    {"run", "run inference steps of a graph on a backend (simulator)", run_run}};

}  // namespace
}  // namespace oi::cli
