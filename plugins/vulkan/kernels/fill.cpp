// fill (ops.md) on shaders/eltwise.comp; the settings travel as bits of the dtype.
#include "elementwise.hpp"

namespace oi::vulkan {
namespace {

void register_fill(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "fill", 1, &eltwise_kernel<EltwiseOp::Fill>);
}

const KernelRegistration registration(register_fill);

}  // namespace
}  // namespace oi::vulkan
