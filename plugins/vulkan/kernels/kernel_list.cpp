// The table the kernels/<op>.cpp registrations fill, and what a dtype needs from a device: part
// of the kernels' object library, so the plugin and the glsl emitter's recording share them.
#include "../kernel_registry.hpp"

namespace oi::vulkan {

std::vector<VulkanKernel>& kernel_list() {
  static std::vector<VulkanKernel> list;
  return list;
}

Needs needs_for(uint32_t dtype) {
  if (dtype == OI_DTYPE_F64) return Needs::F64;
  return Needs::Nothing;
}

}  // namespace oi::vulkan
