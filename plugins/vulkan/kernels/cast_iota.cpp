// cast (ops.md: rounding_mode, saturate) between every pair of the 8/16/32-bit dtypes, and
// iota (ops-nn.md: each element's index along `axis`), on shaders/ew.comp.
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

void register_cast_iota(std::vector<VulkanKernel>& list) {
  const auto numbers =
      dtype_union({kEwFloats, kEwF8, kEwSigned, kEwUnsigned, kEwPackedSigned, kEwPackedUnsigned});
  const auto all = dtype_union({numbers, {OI_DTYPE_BOOL}});
  for (uint32_t from : all) {
    for (uint32_t to : all) {
      list.push_back(
          {"cast", {from}, to, OI_KERNEL_MODE_NORMAL, Needs::Nothing, &ew_kernel<EwOp::Cast>});
    }
  }
  add_ew(list, "iota", &ew_kernel<EwOp::Iota>, 1, numbers, false);
}

const KernelRegistration registration(register_cast_iota);

}  // namespace
}  // namespace oi::vulkan
