// relu (ops.md) on shaders/eltwise.comp (f32, i32, f16, bf16, f64, i64; the settings travel as
// bits of the dtype) and shaders/ew.comp (f8, i16, i8, i4).
#include "elementwise.hpp"
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

void register_relu(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "relu", 1, &eltwise_kernel<EltwiseOp::Relu>);
  // f8, i16, i8 and i4 on ew.comp.
  add_ew(list, "relu", &ew_kernel<EwOp::Relu>, 1,
         {OI_DTYPE_F8, OI_DTYPE_I16, OI_DTYPE_I8, OI_DTYPE_I4}, true);
}

const KernelRegistration registration(register_relu);

}  // namespace
}  // namespace oi::vulkan
