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

  // Casts with an 8-byte side and their iota on ew64.comp: anything with f64 on its f64 build
  // (f64 <-> i64/u64 through word pairs), the rest of i64/u64 on its i64 build.
  for (uint32_t wide : kEwWide) {
    for (uint32_t other : dtype_union({all, kEwWide})) {
      const bool f64 = wide == OI_DTYPE_F64 || other == OI_DTYPE_F64;
      const Needs needs = f64 ? Needs::F64 : Needs::Nothing;  // i64/u64: emulated if need be
      list.push_back({"cast", {wide}, other, OI_KERNEL_MODE_NORMAL, needs, &ew_kernel<EwOp::Cast>});
      if (other != wide &&
          !(other == OI_DTYPE_F64 || other == OI_DTYPE_I64 || other == OI_DTYPE_U64)) {
        list.push_back(
            {"cast", {other}, wide, OI_KERNEL_MODE_NORMAL, needs, &ew_kernel<EwOp::Cast>});
      }
    }
  }
  add_ew_wide(list, "iota", &ew_kernel<EwOp::Iota>, 1, kEwWide, false);
}

const KernelRegistration registration(register_cast_iota);

}  // namespace
}  // namespace oi::vulkan
