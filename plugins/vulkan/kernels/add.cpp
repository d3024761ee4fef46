// add: the elementwise binary op with numpy broadcasting (ops.md), on shaders/eltwise.comp.
#include "elementwise.hpp"
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

void register_add(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "add", 2, &eltwise_kernel<EltwiseOp::Add>);
  add_eltwise_u64(list, "add", 2, &eltwise_kernel<EltwiseOp::Add>);
  // The rest of the catalog's dtypes (narrow and packed integers, f8, bool, bitset) on ew.comp.
  add_ew(list, "add", &ew_kernel<EwOp::Add>, 2,
         dtype_union({kEwF8,
                      kEwPackedSigned,
                      kEwPackedUnsigned,
                      {OI_DTYPE_I16, OI_DTYPE_I8, OI_DTYPE_U32, OI_DTYPE_U16, OI_DTYPE_U8,
                       OI_DTYPE_BOOL, OI_DTYPE_BITSET}}),
         true);
  add_ew_accumulate(list, "add", &ew_kernel<EwOp::Add>, 2,
                    dtype_union({kEwSigned, kEwUnsigned, kEwPackedSigned, kEwPackedUnsigned}));
}

const KernelRegistration registration(register_add);

}  // namespace
}  // namespace oi::vulkan
