// mul: the elementwise binary op with numpy broadcasting (ops.md), on shaders/eltwise.comp.
#include "elementwise.hpp"

namespace oi::vulkan {
namespace {

void register_mul(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "mul", 2, &eltwise_kernel<EltwiseOp::Mul>);
}

const KernelRegistration registration(register_mul);

}  // namespace
}  // namespace oi::vulkan
