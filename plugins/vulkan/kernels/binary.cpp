// Two-input elementwise ops of ops.md on shaders/ew.comp (numpy broadcasting): min/max,
// floor_div/rem, bitwise and/or/xor, the comparisons to bool, and filter (a three-input select).
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

void register_binary(std::vector<VulkanKernel>& list) {
  const auto ints = dtype_union({kEwSigned, kEwUnsigned, kEwPackedSigned, kEwPackedUnsigned});
  const auto numbers = dtype_union({kEwFloats, kEwF8, ints});
  const auto with_bool = dtype_union({ints, {OI_DTYPE_BOOL}});
  // floor_div and rem: of the packed types only i4 and u4 (the catalog's list)
  const auto dividable = dtype_union({kEwSigned, kEwUnsigned, {OI_DTYPE_I4, OI_DTYPE_U4}});
  add_ew(list, "min", &ew_kernel<EwOp::Min>, 2, numbers, true);
  add_ew(list, "max", &ew_kernel<EwOp::Max>, 2, numbers, true);
  add_ew(list, "floor_div", &ew_kernel<EwOp::FloorDiv>, 2, dividable, true);
  add_ew(list, "rem", &ew_kernel<EwOp::Rem>, 2, dividable, true);
  add_ew(list, "and", &ew_kernel<EwOp::And>, 2, with_bool, true);
  add_ew(list, "or", &ew_kernel<EwOp::Or>, 2, with_bool, true);
  add_ew(list, "xor", &ew_kernel<EwOp::Xor>, 2, with_bool, true);
  const auto all = dtype_union({numbers, {OI_DTYPE_BOOL}});
  add_ew(list, "eq", &ew_kernel<EwOp::Eq>, 2, all, false, OI_DTYPE_BOOL);
  add_ew(list, "ne", &ew_kernel<EwOp::Ne>, 2, all, false, OI_DTYPE_BOOL);
  add_ew(list, "lt", &ew_kernel<EwOp::Lt>, 2, numbers, false, OI_DTYPE_BOOL);
  add_ew(list, "le", &ew_kernel<EwOp::Le>, 2, numbers, false, OI_DTYPE_BOOL);
  add_ew(list, "gt", &ew_kernel<EwOp::Gt>, 2, numbers, false, OI_DTYPE_BOOL);
  add_ew(list, "ge", &ew_kernel<EwOp::Ge>, 2, numbers, false, OI_DTYPE_BOOL);
  // The 8-byte dtypes on ew64.comp.
  add_ew_wide(list, "min", &ew_kernel<EwOp::Min>, 2, kEwWide, true);
  add_ew_wide(list, "max", &ew_kernel<EwOp::Max>, 2, kEwWide, true);
  add_ew_wide(list, "floor_div", &ew_kernel<EwOp::FloorDiv>, 2, kEwWideInts, true);
  add_ew_wide(list, "rem", &ew_kernel<EwOp::Rem>, 2, kEwWideInts, true);
  add_ew_wide(list, "div", &ew_kernel<EwOp::Div>, 2, {OI_DTYPE_U64}, true);  // i64: eltwise.comp
  add_ew_wide(list, "and", &ew_kernel<EwOp::And>, 2, kEwWideInts, true);
  add_ew_wide(list, "or", &ew_kernel<EwOp::Or>, 2, kEwWideInts, true);
  add_ew_wide(list, "xor", &ew_kernel<EwOp::Xor>, 2, kEwWideInts, true);
  add_ew_wide(list, "eq", &ew_kernel<EwOp::Eq>, 2, kEwWide, false, OI_DTYPE_BOOL);
  add_ew_wide(list, "ne", &ew_kernel<EwOp::Ne>, 2, kEwWide, false, OI_DTYPE_BOOL);
  add_ew_wide(list, "lt", &ew_kernel<EwOp::Lt>, 2, kEwWide, false, OI_DTYPE_BOOL);
  add_ew_wide(list, "le", &ew_kernel<EwOp::Le>, 2, kEwWide, false, OI_DTYPE_BOOL);
  add_ew_wide(list, "gt", &ew_kernel<EwOp::Gt>, 2, kEwWide, false, OI_DTYPE_BOOL);
  add_ew_wide(list, "ge", &ew_kernel<EwOp::Ge>, 2, kEwWide, false, OI_DTYPE_BOOL);
  for (uint32_t t : kEwWide) {
    for (uint32_t c : {t, static_cast<uint32_t>(OI_DTYPE_BOOL)}) {
      list.push_back(
          {"filter", {t, t, c}, t, OI_KERNEL_MODE_NORMAL, wide_needs(t), &ew_kernel<EwOp::Filter>});
    }
  }
  // filter(a, b, c) = c != 0 ? a : b, c of a's dtype or bool.
  for (uint32_t t : all) {
    list.push_back(
        {"filter", {t, t, t}, t, OI_KERNEL_MODE_NORMAL, Needs::Nothing, &ew_kernel<EwOp::Filter>});
    if (t != OI_DTYPE_BOOL) {
      list.push_back({"filter",
                      {t, t, OI_DTYPE_BOOL},
                      t,
                      OI_KERNEL_MODE_NORMAL,
                      Needs::Nothing,
                      &ew_kernel<EwOp::Filter>});
    }
  }
}

const KernelRegistration registration(register_binary);

}  // namespace
}  // namespace oi::vulkan
