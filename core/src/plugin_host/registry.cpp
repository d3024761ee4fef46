// Discovery: every file of every search directory is loaded or reported as skipped; the first
// plugin of a name wins. Backends are opened lazily and cached.
#include <algorithm>
#include <map>
#include <mutex>
#include <system_error>

#include "openinfer/error.hpp"
#include "plugin_host_internal.hpp"

namespace oi {

using plugin_host::LoadedPlugin;

struct PluginRegistry::Impl {
  std::vector<std::shared_ptr<LoadedPlugin>> loaded;
  std::vector<SkippedPlugin> skipped;
  mutable std::mutex mutex;
  mutable std::map<std::string, std::shared_ptr<Backend>, std::less<>> open_backends;

  void consider(const std::filesystem::path& file);
  std::shared_ptr<Backend> open_backend(const std::shared_ptr<LoadedPlugin>& plugin) const;
};

namespace {

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir,
                                            std::vector<SkippedPlugin>& skipped) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    skipped.push_back({dir, SkipReason::NotAPlugin, "no such directory"});
    return files;
  }
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code type_error;
    if (!it->is_directory(type_error)) files.push_back(it->path());
  }
  if (error) skipped.push_back({dir, SkipReason::NotAPlugin, "cannot list: " + error.message()});
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

void PluginRegistry::Impl::consider(const std::filesystem::path& file) {
  auto opened = plugin_host::open_plugin_library(file);
  if (auto* skip = std::get_if<SkippedPlugin>(&opened)) {
    skipped.push_back(std::move(*skip));
    return;
  }
  auto initialised =
      plugin_host::init_plugin(std::get<std::shared_ptr<plugin_host::PluginLibrary>>(opened));
  if (auto* skip = std::get_if<SkippedPlugin>(&initialised)) {
    skipped.push_back(std::move(*skip));
    return;
  }
  auto plugin = std::get<std::shared_ptr<LoadedPlugin>>(initialised);
  for (const auto& earlier : loaded) {
    if (earlier->description.name == plugin->description.name) {
      skipped.push_back({file, SkipReason::Shadowed,
                         "plugin '" + plugin->description.name + "' is already loaded from " +
                             earlier->description.path.string()});
      return;  // `plugin` shuts down and its library closes here
    }
  }
  loaded.push_back(std::move(plugin));
}

PluginRegistry PluginRegistry::discover(const std::vector<std::filesystem::path>& dirs) {
  PluginRegistry registry;
  for (const auto& dir : dirs) {
    for (const auto& file : files_in(dir, registry.impl_->skipped)) registry.impl_->consider(file);
  }
  return registry;
}

PluginRegistry::PluginRegistry() : impl_(std::make_unique<Impl>()) {}
PluginRegistry::~PluginRegistry() = default;
PluginRegistry::PluginRegistry(PluginRegistry&&) noexcept = default;
PluginRegistry& PluginRegistry::operator=(PluginRegistry&&) noexcept = default;

std::vector<PluginDescription> PluginRegistry::plugins() const {
  std::vector<PluginDescription> out;
  for (const auto& p : impl_->loaded) out.push_back(p->description);
  return out;
}

const std::vector<SkippedPlugin>& PluginRegistry::skipped() const {
  return impl_->skipped;
}

std::vector<std::string> PluginRegistry::backend_names() const {
  std::vector<std::string> names;
  for (const auto& p : impl_->loaded) {
    if (p->description.kind == PluginKind::Backend) names.push_back(p->description.name);
  }
  return names;
}

std::vector<PluginOpSchemas> PluginRegistry::op_schemas() const {
  std::vector<PluginOpSchemas> out;
  for (const auto& p : impl_->loaded) {
    if (p->description.kind == PluginKind::Kernels && p->info.kernels->op_schemas_json) {
      out.push_back({p->description.name, p->info.kernels->op_schemas_json});
    }
  }
  return out;
}

std::shared_ptr<Backend> PluginRegistry::Impl::open_backend(
    const std::shared_ptr<LoadedPlugin>& plugin) const {
  auto state = std::make_shared<Backend::State>();
  state->plugin = plugin;
  state->api = plugin->info.backend;
  const std::string& name = plugin->description.name;
  uint32_t devices = 0;
  plugin_host::throw_if_error(state->api->device_count(plugin->info.context, &devices),
                              "backend '" + name + "'");
  if (devices == 0) {
    throw Error(ErrorKind::Environment, "backend '" + name + "' has no device on this machine");
  }
  oi_device_info info{};
  info.struct_size = sizeof(info);
  info.abi_version = OI_PLUGIN_ABI_VERSION;
  oi_status* status = state->api->device_get_info(plugin->info.context, 0, &info);
  if (status == nullptr) status = state->api->device_open(plugin->info.context, 0, &state->device);
  if (status != nullptr) {
    throw Error(ErrorKind::Environment, "backend '" + name + "' cannot open its device: " +
                                            plugin_host::take_status_message(status));
  }
  state->device_name = info.name ? info.name : name;
  state->features = info.features;
  for (uint32_t i = 0; info.dtypes && i < info.num_dtypes; ++i) {
    if (auto t = dtype_from_tag(info.dtypes[i])) state->dtypes.push_back(*t);
  }
  state->kernels = plugin->kernels;
  for (const auto& other : loaded) {
    if (other->description.kind == PluginKind::Kernels &&
        other->description.target_backend == name) {
      state->kernel_plugins.push_back(other);
      state->kernels.insert(state->kernels.end(), other->kernels.begin(), other->kernels.end());
    }
  }
  return std::make_shared<Backend>(std::move(state));
}

std::shared_ptr<Backend> PluginRegistry::backend(std::string_view name) const {
  std::lock_guard lock(impl_->mutex);
  if (auto it = impl_->open_backends.find(name); it != impl_->open_backends.end()) {
    return it->second;
  }
  for (const auto& p : impl_->loaded) {
    if (p->description.kind == PluginKind::Backend && p->description.name == name) {
      auto backend = impl_->open_backend(p);
      impl_->open_backends.emplace(std::string(name), backend);
      return backend;
    }
  }
  std::string context;
  auto names = backend_names();
  context += "  backends found: " + (names.empty() ? std::string("none") : std::string());
  for (size_t i = 0; i < names.size(); ++i) context += (i ? ", " : "") + names[i];
  context += "\n";
  for (const auto& s : impl_->skipped) {
    context += "  skipped " + s.path.string() + ": " + std::string(skip_reason_name(s.reason)) +
               " (" + s.detail + ")\n";
  }
  throw Error(ErrorKind::Environment, "backend '" + std::string(name) + "' is not available")
      .with_context(context);
}

std::vector<std::string> PluginRegistry::emitter_targets() const {
  std::vector<std::string> targets;
  for (const auto& p : impl_->loaded)
    if (p->description.kind == PluginKind::Emitter)
      targets.push_back(p->description.target_backend);
  return targets;
}

std::shared_ptr<Emitter> PluginRegistry::emitter(std::string_view target) const {
  for (const auto& p : impl_->loaded)
    if (p->description.kind == PluginKind::Emitter && p->description.target_backend == target)
      return plugin_host::make_emitter(p);
  auto targets = emitter_targets();
  std::string context = "  emitter targets found: " + std::string(targets.empty() ? "none" : "");
  for (size_t i = 0; i < targets.size(); ++i) context += (i ? ", " : "") + targets[i];
  context += "\n";
  for (const auto& s : impl_->skipped)
    context += "  skipped " + s.path.string() + ": " + std::string(skip_reason_name(s.reason)) +
               " (" + s.detail + ")\n";
  throw Error(ErrorKind::Environment, "no emitter for target '" + std::string(target) + "'")
      .with_context(context);
}

}  // namespace oi
