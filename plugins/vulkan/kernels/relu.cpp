// relu (ops.md) on shaders/eltwise.comp; the settings travel as bits of the dtype.
#include "elementwise.hpp"

namespace oi::vulkan {
namespace {

void register_relu(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "relu", 1, &eltwise_kernel<EltwiseOp::Relu>);
}

const KernelRegistration registration(register_relu);

}  // namespace
}  // namespace oi::vulkan
