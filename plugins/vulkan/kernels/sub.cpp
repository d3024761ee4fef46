// sub: the elementwise binary op with numpy broadcasting (ops.md), on shaders/eltwise.comp.
#include "elementwise.hpp"

namespace oi::vulkan {
namespace {

void register_sub(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "sub", 2, &eltwise_kernel<EltwiseOp::Sub>);
}

const KernelRegistration registration(register_sub);

}  // namespace
}  // namespace oi::vulkan
