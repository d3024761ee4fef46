#include "kernel_registry.hpp"

namespace oi::vulkan {

std::vector<VulkanKernel>& kernel_list() {
  static std::vector<VulkanKernel> list;
  return list;
}

Needs needs_for(uint32_t dtype) {
  if (dtype == OI_DTYPE_F64) return Needs::F64;
  if (dtype == OI_DTYPE_I64) return Needs::I64;
  return Needs::Nothing;
}

const std::vector<oi_kernel_def>& kernel_defs(const DeviceCaps* caps) {
  static const std::vector<oi_kernel_def> defs = [caps] {
    std::vector<oi_kernel_def> out;
    if (caps == nullptr) return out;
    for (const VulkanKernel& k : kernel_list()) {
      if ((k.needs == Needs::F64 && !caps->f64) || (k.needs == Needs::I64 && !caps->i64)) continue;
      oi_kernel_def d{};
      d.struct_size = sizeof(d);
      d.abi_version = OI_PLUGIN_ABI_VERSION;
      d.op = k.op;
      d.input_dtypes = k.inputs.data();
      d.num_inputs = static_cast<uint32_t>(k.inputs.size());
      d.output_dtype = k.output;
      d.mode = k.mode;
      d.run = k.run;
      out.push_back(d);
    }
    return out;
  }();
  return defs;
}

}  // namespace oi::vulkan
