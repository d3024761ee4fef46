// div: a / b with numpy broadcasting. Integers truncate, INT_MIN / -1 wraps and a zero
// divisor gives div_by_zero_mask or 0; floats follow IEEE (ops.md), on shaders/eltwise.comp.
#include "elementwise.hpp"
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

void register_div(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "div", 2, &eltwise_kernel<EltwiseOp::Div>);
  // The rest of the catalog's dtypes (narrow and packed integers, f8, bool, bitset) on ew.comp.
  add_ew(list, "div", &ew_kernel<EwOp::Div>, 2,
         dtype_union({kEwF8,
                      {OI_DTYPE_I16, OI_DTYPE_I8, OI_DTYPE_U32, OI_DTYPE_U16, OI_DTYPE_U8,
                       OI_DTYPE_I4, OI_DTYPE_U4}}),
         true);
}

const KernelRegistration registration(register_div);

}  // namespace
}  // namespace oi::vulkan
