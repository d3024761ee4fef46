// The Vulkan backend plugin's entry point. The instance is created at init (the kernel table
// depends on what device 0 supports); a machine without Vulkan gets a loaded plugin with no
// device and score 0.
#include <string>

#include "backend.hpp"
#include "kernel_registry.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {

const oi_host_api*& host() {
  static const oi_host_api* h = nullptr;
  return h;
}

namespace {

oi_backend_api make_backend_table() {
  const auto& kernels = kernel_defs(device_caps(0));
  oi_backend_api api{};
  api.struct_size = sizeof(api);
  api.abi_version = OI_PLUGIN_ABI_VERSION;
  api.device_count = device_count;
  api.device_get_info = device_get_info;
  api.device_open = device_open;
  api.device_close = device_close;
  api.buffer_alloc = buffer_alloc;
  api.buffer_free = buffer_free;
  api.buffer_upload = buffer_upload;
  api.buffer_download = buffer_download;
  api.synchronize = synchronize;
  api.buffer_copy = buffer_copy;
  api.kernels = kernels.data();
  api.num_kernels = static_cast<uint32_t>(kernels.size());
  return api;  // no host memory: buffer_wrap_host and buffer_host_pointer stay NULL
}

void shutdown(void*) {
  shutdown_instance();
}

}  // namespace
}  // namespace oi::vulkan

extern "C" OI_PLUGIN_EXPORT oi_status* openinfer_plugin_init(uint32_t host_abi_version,
                                                             const oi_host_api* host,
                                                             oi_plugin_info* out_info) {
  OI_ABI_TRY
  oi::vulkan::host() = host;
  if (host_abi_version < 1) {
    return oi::abi::make_status(host, OI_STATUS_INCOMPATIBLE, "needs a host of plugin ABI >= 1");
  }
  static const oi_backend_api backend = oi::vulkan::make_backend_table();
  static const std::string description = "Vulkan compute backend: " + oi::vulkan::device_summary();
  oi_plugin_info info{};
  info.kind = OI_PLUGIN_KIND_BACKEND;
  info.score = oi::vulkan::device_caps(0) ? 2 : 0;  // above the CPU backend when usable
  info.name = "vulkan";
  info.version = "0.1.0";
  info.description = description.c_str();
  info.shutdown = oi::vulkan::shutdown;
  info.backend = &backend;
  oi::abi::write_versioned(out_info, info);
  OI_ABI_CATCH(host)
}
