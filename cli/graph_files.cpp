// Graph input, the shared check and atomic output of the `openinfer graph` sub-commands.
#include "graph_files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "openinfer/error.hpp"
#include "openinfer/graph_json.hpp"
#include "openinfer/plugin_catalog.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/validate.hpp"

namespace oi::cli {

namespace fs = std::filesystem;
namespace po = boost::program_options;

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw input_error("cannot read '" + path + "'");
  return text.str();
}

Graph load_graph(const std::string& path) {
  if (fs::path(path).extension() == ".json") return graph_from_json(read_text_file(path), path);
  return Graph::load(path);
}

void write_atomically(const std::string& path, const std::string& bytes) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error("cannot write '" + path + "': " + std::strerror(errno));
    out << bytes;
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

bool check_graph(const Graph& graph, const std::optional<Model>& model, bool strict, Context& ctx) {
  // Ops that kernels plugins on the search path ship are known ops; a bad schema is an error.
  const PluginRegistry registry =
      PluginRegistry::discover(plugin_search_path(ctx.plugin_dirs, OPENINFER_BUILD_PLUGIN_DIR));
  const OpCatalog catalog = catalog_with_plugins(registry);
  Diagnostics diag =
      model ? validate_against_model(graph, catalog, *model) : validate_graph(graph, catalog);
  if (strict) diag.promote_warnings();
  ctx.err << diag.format();
  return diag.ok();
}

ParsedArgs parse_graph_args(const std::vector<std::string>& args, po::options_description& options,
                            const char* usage, Context& ctx) {
  ParsedArgs p;
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

}  // namespace oi::cli
