// Opens plugin files. The only place in the core that uses Boost.DLL (the C emitter plugin also
// asks it for its own path).
#define BOOST_DLL_USE_STD_FS
#include <dlfcn.h>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <system_error>

#include "plugin_host_internal.hpp"

namespace oi::plugin_host {
namespace {

class DllPluginLibrary final : public PluginLibrary {
 public:
  DllPluginLibrary(std::filesystem::path path, boost::dll::shared_library library)
      : PluginLibrary(std::move(path)), library_(std::move(library)) {
    entry_ = library_.get<oi_status*(uint32_t, const oi_host_api*, oi_plugin_info*)>(
        OI_PLUGIN_ENTRY_POINT);
  }
  oi_plugin_init_fn entry_point() const override { return entry_; }

 private:
  boost::dll::shared_library library_;
  oi_plugin_init_fn entry_ = nullptr;
};

}  // namespace

std::variant<std::shared_ptr<PluginLibrary>, SkippedPlugin> open_plugin_library(
    const std::filesystem::path& path) {
  boost::dll::shared_library library;
  std::error_code error;
  // rtld_now: a plugin with unresolved symbols fails here, not in the middle of a run.
  // RTLD_NODELETE: a library is never unmapped, even once forgotten, because threads it started
  // (a oneTBB pool) may outlive every object of the plugin.
  const auto mode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local |
                    static_cast<boost::dll::load_mode::type>(RTLD_NODELETE);
  library.load(path, mode, error);
  if (error) {
    const char* reason = dlerror();
    return SkippedPlugin{path, SkipReason::NotAPlugin,
                         "cannot be loaded as a shared library: " +
                             (reason ? std::string(reason) : error.message())};
  }
  if (!library.has(OI_PLUGIN_ENTRY_POINT)) {
    return SkippedPlugin{path, SkipReason::MissingEntryPoint,
                         "a shared library without the entry point " OI_PLUGIN_ENTRY_POINT};
  }
  return std::make_shared<DllPluginLibrary>(path, std::move(library));
}

std::filesystem::path program_directory() {
  std::error_code error;
  std::filesystem::path program = boost::dll::program_location(error);
  if (error) return {};
  return program.parent_path();
}

}  // namespace oi::plugin_host
