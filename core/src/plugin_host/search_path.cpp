// The plugin search path of cli.md.
#include <cstdlib>
#include <string_view>
#include <system_error>

#include "plugin_host_internal.hpp"

namespace oi {
namespace {

void add_unique(std::vector<std::filesystem::path>& dirs, const std::filesystem::path& dir) {
  if (dir.empty()) return;
  std::error_code error;
  auto normal = std::filesystem::weakly_canonical(dir, error);
  if (error) normal = dir.lexically_normal();
  for (const auto& d : dirs) {
    if (d == normal) return;
  }
  dirs.push_back(normal);
}

bool is_inside(const std::filesystem::path& path, const std::filesystem::path& root) {
  auto rel = path.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

std::vector<std::filesystem::path> plugin_search_path(const std::vector<std::string>& cli_dirs,
                                                      const std::string& build_tree_dir) {
  std::vector<std::filesystem::path> dirs;
  for (const auto& d : cli_dirs) add_unique(dirs, d);
  if (const char* env = std::getenv("OPENINFER_PLUGIN_PATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      auto colon = rest.find(':');
      add_unique(dirs, std::string(rest.substr(0, colon)));
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  }
  std::filesystem::path program_dir = plugin_host::program_directory();
  std::error_code error;
  if (!program_dir.empty()) {
    auto installed = program_dir.parent_path() / "lib" / "openinfer" / "plugins";
    if (std::filesystem::is_directory(installed, error)) add_unique(dirs, installed);
  }
  if (!build_tree_dir.empty() && !program_dir.empty()) {
    // <build>/lib/openinfer/plugins: the program runs from the build tree when it is under <build>.
    auto build_root = std::filesystem::weakly_canonical(build_tree_dir, error)
                          .parent_path()
                          .parent_path()
                          .parent_path();
    if (!error && is_inside(std::filesystem::weakly_canonical(program_dir, error), build_root)) {
      add_unique(dirs, build_tree_dir);
    }
  }
  return dirs;
}

}  // namespace oi
