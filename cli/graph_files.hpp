// Shared by the `openinfer graph` sub-commands (cmd_graph.cpp, cmd_graph_dot.cpp): reading a
// graph, the check every one of them runs first, and writing an output file atomically.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"

namespace oi::cli {

std::string read_text_file(const std::string& path);

// A .json file is a serialized graph; anything else is DSL text.
Graph load_graph(const std::string& path);

// Writes through a temporary file in the same folder and renames it: never a partial file.
void write_atomically(const std::string& path, const std::string& bytes);

// `graph check`'s validation: against the model when given, with the ops of the kernels
// plugins on the search path; warnings and errors go to ctx.err as FILE:LINE:COL lines.
// Returns false when the graph has errors (with `strict`, also warnings).
bool check_graph(const Graph& graph, const std::optional<Model>& model, bool strict, Context& ctx);

// Options, the positional GRAPH and --help handling of a `graph` sub-command.
struct ParsedArgs {
  boost::program_options::variables_map vm;
  bool help = false;
};
ParsedArgs parse_graph_args(const std::vector<std::string>& args,
                            boost::program_options::options_description& options, const char* usage,
                            Context& ctx);

int run_graph_dot(const std::vector<std::string>& args, Context& ctx);

}  // namespace oi::cli
