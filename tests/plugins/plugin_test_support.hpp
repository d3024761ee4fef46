// Helpers shared by the plugin tests: fresh work folders with copies of fixture plugins.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace plugin_test {

namespace fs = std::filesystem;

inline fs::path fixture(const std::string& name) {
  return fs::path(FIXTURE_PLUGIN_DIR) / ("libfixture_" + name + ".so");
}

inline fs::path cpu_plugin_dir() {
  return CPU_PLUGIN_DIR;
}

// An empty folder under the test's work folder.
inline fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(TEST_WORK_DIR) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline fs::path copy_into(const fs::path& dir, const fs::path& file, const std::string& as = {}) {
  fs::path target = dir / (as.empty() ? file.filename().string() : as);
  fs::copy_file(file, target, fs::copy_options::overwrite_existing);
  return target;
}

inline void write_text(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

}  // namespace plugin_test
