// `openinfer graph dot GRAPH [--model M] [--data] [--svg|--png] [-o FILE]` (cli.md): checks the
// graph as `graph check` does, then writes its picture as Graphviz DOT, or rendered by `dot`.
#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "graph_files.hpp"
#include "graphviz.hpp"
#include "openinfer/graph_dot.hpp"

namespace oi::cli {

namespace po = boost::program_options;

namespace {

constexpr const char* kDotUsage =
    "Usage: openinfer graph dot GRAPH [--model MODEL] [--data] [--svg | --png] [-o FILE]\n\n"
    "Checks GRAPH as `graph check` does (the same FILE:LINE:COL errors, exit 1), then writes\n"
    "its picture as Graphviz DOT: each block a cluster of its nodes in order, loops nested\n"
    "clusters, branches, yield/await and dep as edges of their own style, variables coloured\n"
    "by memory kind. --model resolves the shapes' size variables; --data adds an edge from each\n"
    "value's producer to its readers. --svg and --png render it with Graphviz's `dot` (Debian\n"
    "package graphviz). Output goes to stdout, or atomically to FILE with -o.";

}  // namespace

int run_graph_dot(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")(
      "model,m", po::value<std::string>(), "validate against this model and resolve shapes")(
      "data", "draw data edges from each value's producer to its readers")(
      "svg", "render as SVG with Graphviz")("png", "render as PNG with Graphviz")(
      "output,o", po::value<std::string>(), "write to this file instead of stdout");
  ParsedArgs p = parse_graph_args(args, options, kDotUsage, ctx);
  if (p.help) return 0;
  if (p.vm.count("svg") && p.vm.count("png")) usage_error("--svg and --png exclude each other");
  const std::string format = p.vm.count("svg") ? "svg" : p.vm.count("png") ? "png" : "";
  if (!format.empty()) require_graphviz();  // before any work: the message says what to install

  const Graph graph = load_graph(p.vm["graph"].as<std::string>());
  std::optional<Model> model;
  if (p.vm.count("model")) model = Model::open(p.vm["model"].as<std::string>());
  if (!check_graph(graph, model, false, ctx)) return 1;

  DotOptions o;
  o.data_edges = p.vm.count("data") > 0;
  o.model = model ? &*model : nullptr;
  std::string bytes = graph_to_dot(graph, o);
  if (!format.empty()) bytes = render_dot(bytes, format);
  if (p.vm.count("output"))
    write_atomically(p.vm["output"].as<std::string>(), bytes);
  else
    ctx.out << bytes;
  return 0;
}

}  // namespace oi::cli
