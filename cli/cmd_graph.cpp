// `openinfer graph check|json` (cli.md): validate a graph, or print its JSON serialization.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_catalog.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/validate.hpp"

namespace oi::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

constexpr const char* kGraphUsage =
    "Usage: openinfer graph SUBCOMMAND [ARGS...]\n\n"
    "Sub-commands:\n"
    "  check GRAPH [--model MODEL] [--strict]   validate a graph (.oi DSL or .json)\n"
    "  json GRAPH [-o OUT.json]                 print or write the graph's JSON serialization\n\n"
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

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw input_error("cannot read '" + path + "'");
  return text.str();
}

// A .json file is a serialized graph; anything else is DSL text.
Graph load_graph(const std::string& path) {
  if (fs::path(path).extension() == ".json") return graph_from_json(read_text_file(path), path);
  return Graph::load(path);
}

// Writes through a temporary file in the same folder and renames it: never a partial file.
void write_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error("cannot write '" + path + "': " + std::strerror(errno));
    out << text;
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw input_error("cannot write '" + path + "'");
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw input_error("cannot write '" + path + "': " + ec.message());
  }
}

struct Parsed {
  po::variables_map vm;
  bool help = false;
};

Parsed parse(const std::vector<std::string>& args, po::options_description& options,
             const char* usage, Context& ctx) {
  Parsed p;
  po::options_description hidden;
  hidden.add_options()("graph", po::value<std::string>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("graph", 1);
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), p.vm);
  po::notify(p.vm);
  if (p.vm.count("help")) {
    ctx.out << usage << "\n\n" << options;
    p.help = true;
  } else if (!p.vm.count("graph")) {
    usage_error("missing GRAPH (see --help)");
  }
  return p;
}

int run_check(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")("model,m", po::value<std::string>(),
                                                     "also validate against this model package")(
      "strict", "treat warnings as errors");
  Parsed p = parse(args, options, kCheckUsage, ctx);
  if (p.help) return 0;
  const Graph graph = load_graph(p.vm["graph"].as<std::string>());
  // Ops that kernels plugins on the search path ship are known ops; a bad schema is an error.
  const PluginRegistry registry =
      PluginRegistry::discover(plugin_search_path(ctx.plugin_dirs, OPENINFER_BUILD_PLUGIN_DIR));
  const OpCatalog catalog = catalog_with_plugins(registry);
  Diagnostics diag;
  if (p.vm.count("model")) {
    const Model model = Model::open(p.vm["model"].as<std::string>());
    diag = validate_against_model(graph, catalog, model);
  } else {
    diag = validate_graph(graph, catalog);
  }
  if (p.vm.count("strict")) diag.promote_warnings();
  ctx.err << diag.format();
  if (!diag.ok()) return 1;
  ctx.out << "ok: " << graph.blocks.size() << " blocks, " << graph.node_count() << " nodes\n";
  return 0;
}

int run_json(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")(
      "output,o", po::value<std::string>(), "write the JSON to this file instead of stdout");
  Parsed p = parse(args, options, kJsonUsage, ctx);
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
    usage_error("missing sub-command: check or json (see `openinfer graph --help`)");
  const std::string& sub = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "--help" || sub == "-h" || sub == "help") {
    ctx.out << kGraphUsage;
    return 0;
  }
  if (sub == "check") return run_check(rest, ctx);
  if (sub == "json") return run_json(rest, ctx);
  usage_error("unknown graph sub-command '" + sub + "' (expected check or json)");
}

const CommandRegistration kRegistration{
    {"graph", "validate a graph (check) or print its JSON serialization (json)", run_graph}};

}  // namespace
}  // namespace oi::cli
