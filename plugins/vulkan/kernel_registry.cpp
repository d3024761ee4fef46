#include "kernel_registry.hpp"

#include <string>

#include "command_stream.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

// Every kernel runs through here (its VulkanKernel in oi_kernel_def.user_data). A decline is
// only honest before the kernel recorded a write: the host reruns the whole call on another
// backend, so a declined call must have changed nothing. One that wrote first is a bug, and an
// error rather than a wrong result.
oi_status* run_kernel(const oi_kernel_call* call) {
  const auto* k = static_cast<const VulkanKernel*>(call->kernel->user_data);
  const uint64_t before = device_writes_on_this_thread();
  oi_status* status = k->run(call);
  if (status == nullptr || call->host->status_code(status) != OI_STATUS_DECLINED ||
      device_writes_on_this_thread() == before) {
    return status;
  }
  try {
    const std::string message =
        std::string("vulkan: ") + k->op +
        " declined its call after recording device writes: " + call->host->status_message(status);
    call->host->status_free(status);
    return abi::make_status(call->host, OI_STATUS_INTERNAL, message.c_str());
  } catch (...) {  // no memory for the message: nothing after status_free throws
    call->host->status_free(status);
    return abi::make_status(call->host, OI_STATUS_INTERNAL, "vulkan: out of memory");
  }
}

}  // namespace

const std::vector<oi_kernel_def>& kernel_defs(const DeviceCaps* caps) {
  static const std::vector<oi_kernel_def> defs = [caps] {
    std::vector<oi_kernel_def> out;
    if (caps == nullptr) return out;
    for (const VulkanKernel& k : kernel_list()) {
      if (k.needs == Needs::F64 && !caps->f64) continue;
      oi_kernel_def d{};
      d.struct_size = sizeof(d);
      d.abi_version = OI_PLUGIN_ABI_VERSION;
      d.op = k.op;
      d.input_dtypes = k.inputs.data();
      d.num_inputs = static_cast<uint32_t>(k.inputs.size());
      d.output_dtype = k.output;
      d.mode = k.mode;
      d.run = run_kernel;
      d.user_data = const_cast<VulkanKernel*>(&k);
      out.push_back(d);
    }
    return out;
  }();
  return defs;
}

}  // namespace oi::vulkan
