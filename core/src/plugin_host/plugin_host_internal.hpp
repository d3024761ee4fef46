// Shared between the files of plugin_host/: status conversion, the loaded-library record, and
// the state behind a Backend. Not installed.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "openinfer/plugin_abi.h"
#include "openinfer/plugin_host.hpp"

namespace oi::plugin_host {

// The host API table for the host's own status calls.
const oi_host_api* host_api();
// The table handed to the plugin file at `path` (one per file, never freed: a plugin may keep
// it and log from its own threads until the process ends). Its log messages carry the file's
// name until set_host_api_name gives the plugin's own.
const oi_host_api* host_api_for(const std::filesystem::path& path);
void set_host_api_name(const oi_host_api* host, const std::string& name);
uint32_t status_code_of(const oi_status* status);

// Takes ownership of `status`; throws oi::Error("CONTEXT: MESSAGE") unless it is NULL.
// UNAVAILABLE and INCOMPATIBLE are environment errors (exit 3), the rest input errors.
void throw_if_error(oi_status* status, std::string_view context);
// Takes ownership; returns the message ("" for OK).
std::string take_status_message(oi_status* status);

// A shared library opened by the loader, kept open for as long as this object lives.
class PluginLibrary {
 public:
  virtual ~PluginLibrary() = default;
  virtual oi_plugin_init_fn entry_point() const = 0;
  const std::filesystem::path& path() const { return path_; }

 protected:
  explicit PluginLibrary(std::filesystem::path path) : path_(std::move(path)) {}

 private:
  std::filesystem::path path_;
};

// Opens `path` with Boost.DLL and finds the entry point (loader.cpp, the only Boost.DLL user).
std::variant<std::shared_ptr<PluginLibrary>, SkippedPlugin> open_plugin_library(
    const std::filesystem::path& path);

// The program's own directory ("" when unknown).
std::filesystem::path program_directory();

// A plugin whose init succeeded and whose info was checked. Calls shutdown when destroyed,
// before the library closes.
struct LoadedPlugin {
  std::shared_ptr<PluginLibrary> library;
  const oi_host_api* host = nullptr;  // the table the plugin was given (host_api_for)
  oi_plugin_info info{};
  PluginDescription description;
  std::vector<Kernel> kernels;  // backends' and kernels plugins' kernel tables
  ~LoadedPlugin();
};

// The C++ face of a loaded emitter plugin (emitter.cpp).
std::shared_ptr<Emitter> make_emitter(std::shared_ptr<LoadedPlugin> plugin);

// Calls the entry point and checks what the plugin reported.
std::variant<std::shared_ptr<LoadedPlugin>, SkippedPlugin> init_plugin(
    std::shared_ptr<PluginLibrary> library);

}  // namespace oi::plugin_host

namespace oi {

struct Backend::State {
  std::shared_ptr<plugin_host::LoadedPlugin> plugin;
  std::vector<std::shared_ptr<plugin_host::LoadedPlugin>> kernel_plugins;
  const oi_backend_api* api = nullptr;
  oi_device* device = nullptr;
  std::string device_name;
  uint64_t features = 0;
  std::vector<DType> dtypes;
  std::vector<Kernel> kernels;
  ~State();
};

}  // namespace oi
