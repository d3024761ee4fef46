// div: a / b with numpy broadcasting. Integers truncate, INT_MIN / -1 wraps and a zero
// divisor gives div_by_zero_mask or 0; floats follow IEEE (ops.md), on shaders/eltwise.comp.
#include "elementwise.hpp"

namespace oi::vulkan {
namespace {

void register_div(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "div", 2, &eltwise_kernel<EltwiseOp::Div>);
}

const KernelRegistration registration(register_div);

}  // namespace
}  // namespace oi::vulkan
