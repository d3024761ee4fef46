// Sub-command registry of the `openinfer` CLI. Each sub-command lives in its own
// cmd_*.cpp and registers itself with a static CommandRegistration.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace oi::cli {

struct Context {
  std::vector<std::string> plugin_dirs;  // every --plugin-dir, in order
  std::ostream& out;
  std::ostream& err;
};

// Runs a sub-command with the arguments after its name (global options removed). Returns
// the exit code; throws oi::Error (exit code from its kind) or a Program_options error (2).
using CommandFn = std::function<int(const std::vector<std::string>& args, Context& ctx)>;

struct Command {
  std::string name;     // "oinf", "graph", "run", "plugins"
  std::string summary;  // one line for `openinfer --help`
  CommandFn run;
};

std::vector<Command>& command_registry();

struct CommandRegistration {
  explicit CommandRegistration(Command c) { command_registry().push_back(std::move(c)); }
};

// Throws a usage error (exit 2) naming the problem.
[[noreturn]] void usage_error(const std::string& message);

}  // namespace oi::cli
