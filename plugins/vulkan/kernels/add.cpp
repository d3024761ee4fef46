// add: the elementwise binary op with numpy broadcasting (ops.md), on shaders/eltwise.comp.
#include "elementwise.hpp"

namespace oi::vulkan {
namespace {

void register_add(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "add", 2, &eltwise_kernel<EltwiseOp::Add>);
}

const KernelRegistration registration(register_add);

}  // namespace
}  // namespace oi::vulkan
