// `openinfer plugins`: every plugin on the search path, loaded or skipped with its reason.
#include <boost/program_options.hpp>
#include <ostream>

#include "command.hpp"
#include "openinfer/plugin_host.hpp"

namespace oi::cli {
namespace {

namespace po = boost::program_options;

void print_plugin(std::ostream& out, const PluginDescription& p) {
  out << plugin_kind_name(p.kind) << " " << p.name << " " << p.version << " (plugin ABI "
      << p.abi_version << ") " << p.path.string() << "\n";
  if (p.kind == PluginKind::Backend) {
    out << "  device: " << (p.device_name.empty() ? "none on this machine" : p.device_name)
        << "\n  kernels: " << p.kernel_count << " (op, dtype, mode)"
        << "\n  flushes subnormals: " << (p.flushes_subnormals() ? "yes" : "no") << "\n";
  } else if (p.kind == PluginKind::Kernels) {
    out << "  extends backend: " << p.target_backend << "\n  kernels: " << p.kernel_count
        << " (op, dtype, mode)\n  adds op schemas: " << (p.op_schema_count ? "yes" : "no") << "\n";
  } else if (p.kind == PluginKind::Emitter) {
    out << "  target: " << p.target_backend << " (openinfer synth --target " << p.target_backend
        << ")\n";
  }
  if (!p.description.empty()) out << "  " << p.description << "\n";
}

int run_plugins(const std::vector<std::string>& args, Context& ctx) {
  po::options_description options("openinfer plugins [--plugin-dir DIR]...\n\nOptions");
  options.add_options()("help,h", "print this help");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  if (vm.count("help")) {
    ctx.out << options
            << "\nLists every plugin on the search path (--plugin-dir, "
               "OPENINFER_PLUGIN_PATH, the install's lib/openinfer/plugins, the "
               "build tree) and every file that was skipped, with the reason.\n";
    return 0;
  }
  auto dirs = plugin_search_path(ctx.plugin_dirs, OPENINFER_BUILD_PLUGIN_DIR);
  auto registry = PluginRegistry::discover(dirs);
  auto plugins = registry.plugins();
  for (const auto& p : plugins) print_plugin(ctx.out, p);
  for (const auto& s : registry.skipped()) {
    ctx.out << "skipped " << s.path.string() << ": " << skip_reason_name(s.reason) << " ("
            << s.detail << ")\n";
  }
  if (plugins.empty() && registry.skipped().empty()) {
    ctx.out << "no plugins found; searched:";
    for (const auto& d : dirs) ctx.out << " " << d.string();
    ctx.out << "\n";
  }
  return 0;
}

const CommandRegistration registration({"plugins", "list the plugins on the search path",
                                        run_plugins});

}  // namespace
}  // namespace oi::cli
