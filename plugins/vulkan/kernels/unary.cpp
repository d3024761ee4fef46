// One-input elementwise ops of ops.md on shaders/ew.comp: sign, rounding, bit ops, tests,
// shifts and clamp, for the 8/16/32-bit dtypes of the catalog.
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

void register_unary(std::vector<VulkanKernel>& list) {
  const auto ints = dtype_union({kEwSigned, kEwUnsigned});
  const auto packed = dtype_union({kEwPackedSigned, kEwPackedUnsigned});
  const auto floats = dtype_union({kEwFloats, kEwF8});
  const auto signed_and_floats = dtype_union({floats, kEwSigned, kEwPackedSigned});
  // popcount, shl and shr: not for the 1-bit types (the catalog leaves them out)
  const auto shiftable = dtype_union({ints, {OI_DTYPE_I4, OI_DTYPE_I2, OI_DTYPE_U4, OI_DTYPE_U2}});
  add_ew(list, "neg", &ew_kernel<EwOp::Neg>, 1, signed_and_floats, true);
  add_ew(list, "abs", &ew_kernel<EwOp::Abs>, 1, signed_and_floats, true);
  add_ew(list, "sign", &ew_kernel<EwOp::Sign>, 1, signed_and_floats, false, OI_DTYPE_I8);
  add_ew(list, "recip", &ew_kernel<EwOp::Recip>, 1, floats, true);
  add_ew(list, "floor", &ew_kernel<EwOp::Floor>, 1, floats, true);
  add_ew(list, "ceil", &ew_kernel<EwOp::Ceil>, 1, floats, true);
  add_ew(list, "round", &ew_kernel<EwOp::Round>, 1, floats, true);
  add_ew(list, "trunc", &ew_kernel<EwOp::Trunc>, 1, floats, true);
  add_ew(list, "not", &ew_kernel<EwOp::Not>, 1, dtype_union({ints, packed, {OI_DTYPE_BOOL}}), true);
  add_ew(list, "popcount", &ew_kernel<EwOp::Popcount>, 1, shiftable, false, OI_DTYPE_U8);
  add_ew(list, "is_nan", &ew_kernel<EwOp::IsNan>, 1, floats, false, OI_DTYPE_BOOL);
  add_ew(list, "is_inf", &ew_kernel<EwOp::IsInf>, 1, floats, false, OI_DTYPE_BOOL);
  add_ew(list, "is_neg", &ew_kernel<EwOp::IsNeg>, 1, dtype_union({floats, ints, kEwPackedSigned}),
         false, OI_DTYPE_BOOL);
  add_ew(list, "shl", &ew_kernel<EwOp::Shl>, 1, shiftable, true);
  add_ew(list, "shr", &ew_kernel<EwOp::Shr>, 1, shiftable, true);
  add_ew(list, "clamp", &ew_kernel<EwOp::Clamp>, 1, dtype_union({floats, ints, packed}), true);

  // The 8-byte dtypes on ew64.comp.
  const std::vector<uint32_t> f64 = {OI_DTYPE_F64};
  add_ew_wide(list, "neg", &ew_kernel<EwOp::Neg>, 1, {OI_DTYPE_F64, OI_DTYPE_I64}, true);
  add_ew_wide(list, "abs", &ew_kernel<EwOp::Abs>, 1, {OI_DTYPE_F64, OI_DTYPE_I64}, true);
  add_ew_wide(list, "sign", &ew_kernel<EwOp::Sign>, 1, {OI_DTYPE_F64, OI_DTYPE_I64}, false,
              OI_DTYPE_I8);
  add_ew_wide(list, "recip", &ew_kernel<EwOp::Recip>, 1, f64, true);
  add_ew_wide(list, "floor", &ew_kernel<EwOp::Floor>, 1, f64, true);
  add_ew_wide(list, "ceil", &ew_kernel<EwOp::Ceil>, 1, f64, true);
  add_ew_wide(list, "round", &ew_kernel<EwOp::Round>, 1, f64, true);
  add_ew_wide(list, "trunc", &ew_kernel<EwOp::Trunc>, 1, f64, true);
  add_ew_wide(list, "not", &ew_kernel<EwOp::Not>, 1, kEwWideInts, true);
  add_ew_wide(list, "popcount", &ew_kernel<EwOp::Popcount>, 1, kEwWideInts, false, OI_DTYPE_U8);
  add_ew_wide(list, "is_nan", &ew_kernel<EwOp::IsNan>, 1, f64, false, OI_DTYPE_BOOL);
  add_ew_wide(list, "is_inf", &ew_kernel<EwOp::IsInf>, 1, f64, false, OI_DTYPE_BOOL);
  add_ew_wide(list, "is_neg", &ew_kernel<EwOp::IsNeg>, 1, kEwWide, false, OI_DTYPE_BOOL);
  add_ew_wide(list, "shl", &ew_kernel<EwOp::Shl>, 1, kEwWideInts, true);
  add_ew_wide(list, "shr", &ew_kernel<EwOp::Shr>, 1, kEwWideInts, true);
  add_ew_wide(list, "clamp", &ew_kernel<EwOp::Clamp>, 1, kEwWide, true);

  // abs accumulating (acc=) into a wider signed integer.
  add_ew_accumulate(list, "abs", &ew_kernel<EwOp::Abs>, 1,
                    dtype_union({kEwSigned, kEwPackedSigned}));
}

const KernelRegistration registration(register_unary);

}  // namespace
}  // namespace oi::vulkan
