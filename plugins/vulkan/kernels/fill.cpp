// fill (ops.md) on shaders/eltwise.comp; the settings travel as bits of the dtype.
#include "elementwise.hpp"
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

void register_fill(std::vector<VulkanKernel>& list) {
  add_eltwise(list, "fill", 1, &eltwise_kernel<EltwiseOp::Fill>);
  add_eltwise_u64(list, "fill", 1, &eltwise_kernel<EltwiseOp::Fill>);
  // The rest of the catalog's dtypes (narrow and packed integers, f8, bool, bitset) on ew.comp.
  add_ew(list, "fill", &ew_kernel<EwOp::Fill>, 1,
         dtype_union({kEwF8,
                      kEwPackedSigned,
                      kEwPackedUnsigned,
                      {OI_DTYPE_I16, OI_DTYPE_I8, OI_DTYPE_U32, OI_DTYPE_U16, OI_DTYPE_U8,
                       OI_DTYPE_BOOL, OI_DTYPE_BITSET}}),
         true);
}

const KernelRegistration registration(register_fill);

}  // namespace
}  // namespace oi::vulkan
