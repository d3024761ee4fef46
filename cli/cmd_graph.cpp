// `openinfer graph check|json|dot` (cli.md): validate a graph, print its JSON serialization, or
// draw it (cmd_graph_dot.cpp).
#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "graph_files.hpp"
#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"
#include "openinfer/model.hpp"

namespace oi::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kGraphUsage =
    "Usage: openinfer graph SUBCOMMAND [ARGS...]\n\n"
    "Sub-commands:\n"
    "  check GRAPH [--model MODEL] [--strict]   validate a graph (.oi DSL or .json)\n"
    "  json GRAPH [-o OUT.json]                 print or write the graph's JSON serialization\n"
    "  dot GRAPH [--model MODEL] [-o FILE]      draw the graph (Graphviz DOT, --svg, --png)\n\n"
    "`openinfer graph SUBCOMMAND --help` describes one sub-command.\n";

constexpr const char* kCheckUsage =
    "Usage: openinfer graph check GRAPH [--model MODEL] [--strict]\n\n"
    "Parses GRAPH (a .oi DSL file or a .json serialized graph) and validates it. With --model,\n"
    "also validates it against the model package (size variables, links, dtypes, shapes).\n"
    "Ops added by kernels plugins on the plugin search path (--plugin-dir) are accepted.\n"
    "Prints `ok: N blocks, M nodes` and any warnings, or every error (FILE:LINE:COL: error: ...).\n"
    "Exit 0 when valid, 1 when not.";

constexpr const char* kJsonUsage =
    "Usage: openinfer graph json GRAPH [-o OUT.json]\n\n"
    "Writes the graph's JSON serialization to stdout, or atomically to OUT.json with -o.";

int run_check(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")("model,m", po::value<std::string>(),
                                                     "also validate against this model package")(
      "strict", "treat warnings as errors");
  ParsedArgs p = parse_graph_args(args, options, kCheckUsage, ctx);
  if (p.help) return 0;
  const Graph graph = load_graph(p.vm["graph"].as<std::string>());
  std::optional<Model> model;
  if (p.vm.count("model")) model = Model::open(p.vm["model"].as<std::string>());
  if (!check_graph(graph, model, p.vm.count("strict") > 0, ctx)) return 1;
  ctx.out << "ok: " << graph.blocks.size() << " blocks, " << graph.node_count() << " nodes\n";
  return 0;
}

int run_json(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")(
      "output,o", po::value<std::string>(), "write the JSON to this file instead of stdout");
  ParsedArgs p = parse_graph_args(args, options, kJsonUsage, ctx);
  if (p.help) return 0;
  const std::string json = graph_to_json(load_graph(p.vm["graph"].as<std::string>()));
  if (p.vm.count("output"))
    write_atomically(p.vm["output"].as<std::string>(), json);
  else
    ctx.out << json;
  return 0;
}

int run_graph(const std::vector<std::string>& args, Context& ctx) {
  if (args.empty())
    usage_error("missing sub-command: check, json or dot (see `openinfer graph --help`)");
  const std::string& sub = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "--help" || sub == "-h" || sub == "help") {
    ctx.out << kGraphUsage;
    return 0;
  }
  if (sub == "check") return run_check(rest, ctx);
  if (sub == "json") return run_json(rest, ctx);
  if (sub == "dot") return run_graph_dot(rest, ctx);
  usage_error("unknown graph sub-command '" + sub + "' (expected check, json or dot)");
}

const CommandRegistration kRegistration{
    {"graph", "validate a graph (check), print its JSON (json) or draw it (dot)", run_graph}};

}  // namespace
}  // namespace oi::cli
