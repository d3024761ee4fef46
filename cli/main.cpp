// `openinfer`: global options, sub-command dispatch, and the error/exit-code contract of cli.md.
#include <algorithm>
#include <boost/program_options/errors.hpp>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "openinfer/error.hpp"
#include "openinfer/version.hpp"

namespace oi::cli {

std::vector<Command>& command_registry() {
  static std::vector<Command> registry;
  return registry;
}

void usage_error(const std::string& message) {
  throw Error(ErrorKind::Usage, message);
}

namespace {

void print_help(std::ostream& out) {
  out << "Usage: openinfer [--plugin-dir DIR]... COMMAND [ARGS...]\n"
         "       openinfer --help | --version\n\n"
         "Commands:\n";
  auto cmds = command_registry();
  std::sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.name < b.name; });
  for (const auto& c : cmds) {
    std::string pad(c.name.size() < 10 ? 10 - c.name.size() : 1, ' ');
    out << "  " << c.name << pad << c.summary << "\n";
  }
  out << "\nGlobal options:\n"
         "  --plugin-dir DIR  add a directory to scan for plugins (repeatable, before or\n"
         "                    after the command)\n"
         "  --help            print this help; `openinfer COMMAND --help` for a command\n"
         "  --version         print the version and the plugin ABI version\n\n"
         "Exit codes: 0 ok, 1 bad input, 2 usage error, 3 environment (backend or plugin)\n";
}

void print_error(std::ostream& err, const Error& e) {
  if (!e.where().empty()) err << e.where() << ": ";
  err << "error: " << e.what() << "\n";
  if (!e.context().empty()) {
    err << e.context();
    if (e.context().back() != '\n') err << "\n";
  }
}

int run(int argc, char** argv) {
  Context ctx{{}, std::cout, std::cerr};
  std::vector<std::string> rest;
  // --plugin-dir is global and may stand anywhere before a bare "--".
  bool passthrough = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!passthrough && a == "--") {
      passthrough = true;
      rest.push_back(a);
    } else if (!passthrough && a == "--plugin-dir") {
      if (i + 1 >= argc) usage_error("--plugin-dir needs a directory");
      ctx.plugin_dirs.push_back(argv[++i]);
    } else if (!passthrough && a.rfind("--plugin-dir=", 0) == 0) {
      ctx.plugin_dirs.push_back(a.substr(std::strlen("--plugin-dir=")));
    } else {
      rest.push_back(a);
    }
  }
  if (rest.empty()) {
    print_help(ctx.err);
    return 2;
  }
  const std::string& first = rest.front();
  if (first == "--help" || first == "-h" || first == "help") {
    print_help(ctx.out);
    return 0;
  }
  if (first == "--version") {
    ctx.out << "openinfer " << kVersion << " (plugin ABI " << kPluginAbiVersion << ")\n";
    return 0;
  }
  for (const auto& c : command_registry()) {
    if (c.name == first) {
      std::vector<std::string> args(rest.begin() + 1, rest.end());
      return c.run(args, ctx);
    }
  }
  if (first.rfind("-", 0) == 0) usage_error("unknown option '" + first + "'");
  usage_error("unknown command '" + first + "' (see `openinfer --help`)");
}

}  // namespace
}  // namespace oi::cli

int main(int argc, char** argv) {
  try {
    return oi::cli::run(argc, argv);
  } catch (const oi::Error& e) {
    oi::cli::print_error(std::cerr, e);
    return static_cast<int>(e.kind());
  } catch (const boost::program_options::error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
