// sub: the elementwise binary op with numpy broadcasting (ops.md), on shaders/eltwise.comp.
#include "elementwise.hpp"
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

void register_sub(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "sub", 2, &eltwise_kernel<EltwiseOp::Sub>);
  add_eltwise_u64(list, "sub", 2, &eltwise_kernel<EltwiseOp::Sub>);
  // The rest of the catalog's dtypes (narrow and packed integers, f8, bool, bitset) on ew.comp.
  add_ew(list, "sub", &ew_kernel<EwOp::Sub>, 2,
         dtype_union({kEwF8,
                      kEwPackedSigned,
                      kEwPackedUnsigned,
                      {OI_DTYPE_I16, OI_DTYPE_I8, OI_DTYPE_U32, OI_DTYPE_U16, OI_DTYPE_U8}}),
         true);
  add_ew_accumulate(list, "sub", &ew_kernel<EwOp::Sub>, 2,
                    dtype_union({kEwSigned, kEwUnsigned, kEwPackedSigned, kEwPackedUnsigned}));
}

const KernelRegistration registration(register_sub);

}  // namespace
}  // namespace oi::vulkan
