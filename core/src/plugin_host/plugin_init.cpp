// Calls a plugin's entry point and checks everything it reports before the host relies on it.
#include <optional>
#include <string>

#include "openinfer/error.hpp"
#include "plugin_host_internal.hpp"

namespace oi::plugin_host {
namespace {

// Thrown while checking a plugin's info; becomes an InitFailed skip.
struct BadPluginInfo {
  std::string message;
};

std::string c_string(const char* s, const char* what) {
  if (s == nullptr || *s == '\0') throw BadPluginInfo{std::string("reports no ") + what};
  return s;
}

template <class Table>
void check_table_header(const Table* table, size_t min_size, const char* what) {
  if (table == nullptr) throw BadPluginInfo{std::string("reports no ") + what + " table"};
  if (table->struct_size < min_size) {
    throw BadPluginInfo{std::string(what) + " table is too small (struct_size " +
                        std::to_string(table->struct_size) + ", need at least " +
                        std::to_string(min_size) + ")"};
  }
}

std::vector<Kernel> read_kernels(const oi_kernel_def* defs, uint32_t count,
                                 const LoadedPlugin& provider) {
  if (count > 0 && defs == nullptr) throw BadPluginInfo{"reports kernels but no kernel table"};
  std::vector<Kernel> kernels;
  kernels.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const oi_kernel_def& d = defs[i];
    std::string where = "kernel #" + std::to_string(i);
    if (d.struct_size < offsetof(oi_kernel_def, user_data)) {
      throw BadPluginInfo{where + " has struct_size " + std::to_string(d.struct_size)};
    }
    if (d.op == nullptr || *d.op == '\0' || d.run == nullptr) {
      throw BadPluginInfo{where + " has no op name or no function"};
    }
    where += " (" + std::string(d.op) + ")";
    if (d.num_inputs > 0 && d.input_dtypes == nullptr) {
      throw BadPluginInfo{where + " has no input dtypes"};
    }
    if (d.mode > OI_KERNEL_MODE_ACCUMULATE) {
      throw BadPluginInfo{where + " has unknown mode " + std::to_string(d.mode)};
    }
    Kernel k{d.op,
             {},
             DType::f32,
             static_cast<KernelMode>(d.mode),
             provider.description.name,
             &d,
             provider.host,
             provider.info.abi_version};
    for (uint32_t j = 0; j < d.num_inputs; ++j) {
      auto t = dtype_from_tag(d.input_dtypes[j]);
      if (!t)
        throw BadPluginInfo{where + " has unknown input dtype tag " +
                            std::to_string(d.input_dtypes[j])};
      k.inputs.push_back(*t);
    }
    auto out = dtype_from_tag(d.output_dtype);
    if (!out)
      throw BadPluginInfo{where + " has unknown output dtype tag " +
                          std::to_string(d.output_dtype)};
    k.output = *out;
    kernels.push_back(std::move(k));
  }
  return kernels;
}

void describe_backend(LoadedPlugin& p) {
  const oi_backend_api* api = p.info.backend;
  check_table_header(api, OI_BACKEND_API_MIN_SIZE, "backend");
  if (!api->device_count || !api->device_get_info || !api->device_open || !api->device_close ||
      !api->buffer_alloc || !api->buffer_free || !api->buffer_upload || !api->buffer_download ||
      !api->synchronize) {
    throw BadPluginInfo{"backend table lacks a required function"};
  }
  p.kernels = read_kernels(api->kernels, api->num_kernels, p);
  p.description.kernel_count = p.kernels.size();
  uint32_t devices = 0;
  throw_if_error(api->device_count(p.info.context, &devices), "device_count");
  if (devices == 0) return;
  oi_device_info dev{};
  dev.struct_size = sizeof(dev);
  dev.abi_version = OI_PLUGIN_ABI_VERSION;
  throw_if_error(api->device_get_info(p.info.context, 0, &dev), "device_get_info");
  p.description.device_name = dev.name ? dev.name : "";
  p.description.features = dev.features;
}

void describe_kernels(LoadedPlugin& p) {
  const oi_kernels_api* api = p.info.kernels;
  check_table_header(api, sizeof(oi_kernels_api), "kernels");
  p.description.target_backend = c_string(api->backend, "target backend name");
  p.kernels = read_kernels(api->kernels, api->num_kernels, p);
  p.description.kernel_count = p.kernels.size();
  p.description.op_schema_count = api->op_schemas_json ? 1 : 0;
}

void describe_emitter(LoadedPlugin& p) {
  // ABI 1 reserved the emitter kind with an empty table: its functions are ABI 2 fields.
  if (p.info.abi_version < 2) {
    throw BadPluginInfo{
        "emitter plugins need plugin ABI 2 (ABI 1 only reserved the kind); "
        "rebuild against the current openinfer/plugin_abi.h"};
  }
  const oi_emitter_api* api = p.info.emitter;
  check_table_header(api, OI_EMITTER_API_MIN_SIZE, "emitter");
  p.description.target_backend = c_string(api->target, "emitter target");
  if (!api->emit || !api->release) throw BadPluginInfo{"emitter table lacks emit or release"};
}

}  // namespace

LoadedPlugin::~LoadedPlugin() {
  if (info.shutdown != nullptr) info.shutdown(info.context);
}

std::variant<std::shared_ptr<LoadedPlugin>, SkippedPlugin> init_plugin(
    std::shared_ptr<PluginLibrary> library) {
  const std::filesystem::path path = library->path();
  oi_plugin_info info{};
  info.struct_size = sizeof(info);
  info.abi_version = OI_PLUGIN_ABI_VERSION;
  const oi_host_api* host = host_api_for(path);
  oi_status* status = library->entry_point()(OI_PLUGIN_ABI_VERSION, host, &info);
  if (status != nullptr) {
    bool too_new = status_code_of(status) == OI_STATUS_INCOMPATIBLE &&
                   info.abi_version > OI_PLUGIN_ABI_VERSION;
    std::string message = take_status_message(status);
    if (too_new) {
      return SkippedPlugin{path, SkipReason::AbiTooNew,
                           "plugin ABI " + std::to_string(info.abi_version) +
                               ", this host supports 1 to " +
                               std::to_string(OI_PLUGIN_ABI_VERSION) + ": " + message};
    }
    return SkippedPlugin{path, SkipReason::InitFailed, message};
  }
  if (info.abi_version > OI_PLUGIN_ABI_VERSION) {
    if (info.shutdown) info.shutdown(info.context);
    return SkippedPlugin{path, SkipReason::AbiTooNew,
                         "plugin ABI " + std::to_string(info.abi_version) +
                             ", this host supports 1 to " + std::to_string(OI_PLUGIN_ABI_VERSION)};
  }
  auto plugin = std::make_shared<LoadedPlugin>();
  plugin->library = std::move(library);
  plugin->host = host;
  plugin->info = info;  // from here on, shutdown runs when `plugin` goes away
  try {
    if (info.abi_version == 0) throw BadPluginInfo{"reports ABI version 0"};
    if (info.struct_size < offsetof(oi_plugin_info, description)) {
      throw BadPluginInfo{"plugin info is too small (struct_size " +
                          std::to_string(info.struct_size) + ")"};
    }
    PluginDescription& d = plugin->description;
    d.name = c_string(info.name, "name");
    set_host_api_name(host, d.name);
    d.version = c_string(info.version, "version");
    if (OI_STRUCT_HAS(&info, oi_plugin_info, description) && info.description) {
      d.description = info.description;
    }
    d.abi_version = info.abi_version;
    d.score = info.score;
    d.path = path;
    switch (info.kind) {
      case OI_PLUGIN_KIND_BACKEND:
        d.kind = PluginKind::Backend;
        describe_backend(*plugin);
        break;
      case OI_PLUGIN_KIND_KERNELS:
        d.kind = PluginKind::Kernels;
        describe_kernels(*plugin);
        break;
      case OI_PLUGIN_KIND_EMITTER:
        d.kind = PluginKind::Emitter;
        describe_emitter(*plugin);
        break;
      default:
        throw BadPluginInfo{"reports unknown plugin kind " + std::to_string(info.kind)};
    }
  } catch (const BadPluginInfo& e) {
    return SkippedPlugin{path, SkipReason::InitFailed, e.message};
  } catch (const Error& e) {
    return SkippedPlugin{path, SkipReason::InitFailed, e.what()};
  }
  return plugin;
}

}  // namespace oi::plugin_host
