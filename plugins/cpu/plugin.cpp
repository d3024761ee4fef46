// The CPU backend plugin's entry point: plugin info and the backend table.
#include "cpu_status.hpp"
#include "device.hpp"
#include "kernel_registry.hpp"
#include "openinfer/plugin_abi.hpp"

namespace {

oi_backend_api make_backend_table() {
  const auto& kernels = oi::cpu::kernel_defs();
  oi_backend_api api{};
  api.struct_size = sizeof(api);
  api.abi_version = OI_PLUGIN_ABI_VERSION;
  api.device_count = oi::cpu::device_count;
  api.device_get_info = oi::cpu::device_get_info;
  api.device_open = oi::cpu::device_open;
  api.device_close = oi::cpu::device_close;
  api.buffer_alloc = oi::cpu::buffer_alloc;
  api.buffer_free = oi::cpu::buffer_free;
  api.buffer_upload = oi::cpu::buffer_upload;
  api.buffer_download = oi::cpu::buffer_download;
  api.synchronize = oi::cpu::synchronize;
  api.kernels = kernels.data();
  api.num_kernels = static_cast<uint32_t>(kernels.size());
  api.buffer_wrap_host = oi::cpu::buffer_wrap_host;
  api.buffer_host_pointer = oi::cpu::buffer_host_pointer;
  api.buffer_copy = oi::cpu::buffer_copy;
  return api;
}

}  // namespace

extern "C" OI_PLUGIN_EXPORT oi_status* openinfer_plugin_init(uint32_t host_abi_version,
                                                             const oi_host_api* host,
                                                             oi_plugin_info* out_info) {
  OI_ABI_TRY
  oi::cpu::host() = host;
  if (host_abi_version < 1) {
    return oi::abi::make_status(host, OI_STATUS_INCOMPATIBLE, "needs a host of plugin ABI >= 1");
  }
  static const oi_backend_api backend = make_backend_table();
  oi_plugin_info info{};
  info.kind = OI_PLUGIN_KIND_BACKEND;
  info.score = 1;
  info.name = "cpu";
  info.version = "0.1.0";
  info.description = "reference CPU backend (xsimd, oneTBB)";
  info.backend = &backend;
  oi::abi::write_versioned(out_info, info);
  OI_ABI_CATCH(host)
}
