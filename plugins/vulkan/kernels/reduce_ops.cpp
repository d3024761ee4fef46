// sum/prod/mean/max/min_axis over `axes` and argmax/argmin_axis over `axis` (ops.md) on
// shaders/reduce.comp, for the 8/16/32-bit dtypes, f8, the packed integers and i64/u64 (as word
// pairs, no shaderInt64 needed), and f64 on the reduce_f64 variant (shaderFloat64); acc= for the
// integer sums, products and means. Integer means sum exactly (64 bits; 96 for i64/u64) and
// truncate the quotient.
#include <algorithm>
#include <limits>
#include <string>

#include "elementwise.hpp"
#include "ew_ops.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

enum class ReduceOp : uint32_t {
  Sum = 0,
  Prod = 1,
  Mean = 2,
  Max = 3,
  Min = 4,
  ArgMax = 5,
  ArgMin = 6,
  AllFinite = 7
};
constexpr uint32_t kMaxRank = 8;

[[noreturn]] void fail(oi_status_code code, const std::string& why) {
  throw abi::StatusError(code, why);
}

// A packed tensor starts at bit 0 of its first byte: 8 / bits elements a byte.
uint32_t element_index(const oi_tensor_desc& t) {
  const uint32_t bits = dtype_bits(t.dtype);
  if (bits < 8) return fit32(t.byte_offset * (8 / bits));
  const uint32_t size = bits / 8;
  if (t.byte_offset % size != 0) {
    fail(OI_STATUS_DECLINED, "vulkan: tensor byte offsets must be multiples of the element size");
  }
  return fit32(t.byte_offset / size);
}

// Which input axes are reduced: `axes` (absent: all; empty: none) or argmax's one `axis`.
std::vector<bool> reduced_axes(const oi_kernel_call& c, const char* op, bool single) {
  const uint32_t rank = c.inputs[0].rank;
  std::vector<bool> r(rank, false);
  std::vector<int64_t> axes;
  if (single) {
    axes.push_back(abi::setting_int(c, "axis", 0));
  } else if (const oi_setting* s = abi::find_setting(c, "axes")) {
    axes.assign(s->list_values, s->list_values + s->list_length);
  } else {
    std::fill(r.begin(), r.end(), true);
  }
  for (int64_t a : axes) {
    const int64_t k = a < 0 ? a + rank : a;
    if (k < 0 || k >= static_cast<int64_t>(rank) || r[k]) {
      fail(OI_STATUS_INVALID_ARGUMENT,
           std::string(op) + ": axis " + std::to_string(a) + " is out of range or repeated");
    }
    r[k] = true;
  }
  return r;
}

template <ReduceOp Op>
oi_status* reduce_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  constexpr bool arg = Op == ReduceOp::ArgMax || Op == ReduceOp::ArgMin;
  const char* name = Op == ReduceOp::Sum      ? "sum_axis"
                     : Op == ReduceOp::Prod   ? "prod_axis"
                     : Op == ReduceOp::Mean   ? "mean_axis"
                     : Op == ReduceOp::Max    ? "max_axis"
                     : Op == ReduceOp::Min    ? "min_axis"
                     : Op == ReduceOp::ArgMax ? "argmax_axis"
                     : Op == ReduceOp::ArgMin ? "argmin_axis"
                                              : "is_finite";
  const oi_tensor_desc& in = call->inputs[0];
  const oi_tensor_desc& out = call->outputs[0];
  if (in.rank > kMaxRank) fail(OI_STATUS_DECLINED, "vulkan: tensors of rank above 8");
  const std::vector<bool> red = reduced_axes(*call, name, arg);
  std::vector<uint64_t> stride(in.rank, 1);
  for (uint32_t k = in.rank; k-- > 1;) stride[k - 1] = stride[k] * in.dims[k];
  std::vector<uint32_t> kept, reduced;
  uint64_t outputs = 1, count = 1;
  for (uint32_t k = 0; k < in.rank; ++k) {
    auto& list = red[k] ? reduced : kept;
    list.push_back(fit32(in.dims[k]));
    list.push_back(fit32(stride[k]));
    (red[k] ? count : outputs) *= in.dims[k];
  }
  if (outputs == 0) return nullptr;
  if (count == 0 && (Op == ReduceOp::Max || Op == ReduceOp::Min || arg)) {
    fail(OI_STATUS_INVALID_ARGUMENT, std::string(name) + " over an empty axis");
  }
  const bool f64 = in.dtype == OI_DTYPE_F64;
  Dispatch job;
  job.shader = f64 ? "reduce_f64" : "reduce";
  job.float_width = f64 ? 64 : 32;
  // acc=: sum/prod into the wider output dtype
  const bool folds = Op == ReduceOp::Sum || Op == ReduceOp::Prod || Op == ReduceOp::Mean;
  const uint32_t acc =
      out.dtype != in.dtype && folds ? static_cast<uint32_t>(wide_dtype_code(out.dtype)) : 99;
  job.spec = {static_cast<uint32_t>(Op), static_cast<uint32_t>(wide_dtype_code(in.dtype)), acc};
  job.params.assign(24 + 2 * kMaxRank, 0);
  job.params[0] = fit32(outputs);
  job.params[1] = static_cast<uint32_t>(kept.size() / 2);
  job.params[2] = static_cast<uint32_t>(reduced.size() / 2);
  job.params[3] = fit32(count);
  job.params[4] = element_index(in);
  job.params[5] = element_index(out);
  fit32(uint64_t{job.params[5]} + outputs + 4);
  job.params[6] = abi::setting_bool(*call, "select_first", true) ? 1 : 0;
  std::copy(kept.begin(), kept.end(), job.params.begin() + 8);
  std::copy(reduced.begin(), reduced.end(), job.params.begin() + 24);
  job.buffers[0] = in.buffer;
  job.buffers[3] = out.buffer;
  job.output = 3;
  job.groups[0] = std::min<uint32_t>(fit32((outputs + 255) / 256 + 1), 65535);
  // Few outputs over one long axis (a decoder's argmax over the vocabulary): a workgroup per
  // output instead of one invocation walking tens of thousands of elements alone.
  const bool picks = Op == ReduceOp::Max || Op == ReduceOp::Min || arg;
  const bool word_out =
      arg || in.dtype == OI_DTYPE_F32 || in.dtype == OI_DTYPE_I32 || in.dtype == OI_DTYPE_U32;
  const bool narrow_in =
      in.dtype != OI_DTYPE_F64 && in.dtype != OI_DTYPE_I64 && in.dtype != OI_DTYPE_U64;
  if (picks && word_out && narrow_in && reduced.size() == 2 && count >= 1024 && outputs <= 4096) {
    job.spec.push_back(1);  // ROW_GROUPS
    job.groups[0] = static_cast<uint32_t>(outputs);
  }
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void register_reduce(std::vector<VulkanKernel>& list) {
  const auto all = dtype_union({kEwFloats,
                                kEwF8,
                                kEwSigned,
                                kEwUnsigned,
                                kEwPackedSigned,
                                kEwPackedUnsigned,
                                {OI_DTYPE_I64, OI_DTYPE_U64, OI_DTYPE_F64}});
  for (uint32_t t : all) {
    // Only f64 computes in 64-bit shader arithmetic; i64/u64 are word pairs.
    const Needs needs = t == OI_DTYPE_F64 ? Needs::F64 : Needs::Nothing;
    auto add = [&](const char* op, uint32_t out, oi_kernel_fn fn) {
      list.push_back({op, {t}, out, OI_KERNEL_MODE_NORMAL, needs, fn});
    };
    add("sum_axis", t, &reduce_kernel<ReduceOp::Sum>);
    add("prod_axis", t, &reduce_kernel<ReduceOp::Prod>);
    add("max_axis", t, &reduce_kernel<ReduceOp::Max>);
    add("min_axis", t, &reduce_kernel<ReduceOp::Min>);
    add("argmax_axis", OI_DTYPE_I64, &reduce_kernel<ReduceOp::ArgMax>);
    add("argmin_axis", OI_DTYPE_I64, &reduce_kernel<ReduceOp::ArgMin>);
  }
  // sum/prod/mean accumulating (acc=) into a wider integer (i64/u64 as word pairs, no
  // shaderInt64), and the integer mean: the exact sum, the quotient truncated.
  for (uint32_t t : dtype_union({kEwSigned, kEwUnsigned, kEwPackedSigned, kEwPackedUnsigned})) {
    auto add = [&](const char* op, uint32_t out, oi_kernel_mode mode, oi_kernel_fn fn) {
      list.push_back({op, {t}, out, mode, Needs::Nothing, fn});
    };
    for (uint32_t acc : accumulate_targets(t)) {
      add("sum_axis", acc, OI_KERNEL_MODE_ACCUMULATE, &reduce_kernel<ReduceOp::Sum>);
      add("prod_axis", acc, OI_KERNEL_MODE_ACCUMULATE, &reduce_kernel<ReduceOp::Prod>);
      add("mean_axis", acc, OI_KERNEL_MODE_ACCUMULATE, &reduce_kernel<ReduceOp::Mean>);
    }
    add("mean_axis", t, OI_KERNEL_MODE_NORMAL, &reduce_kernel<ReduceOp::Mean>);
  }
  for (uint32_t t : {OI_DTYPE_I64, OI_DTYPE_U64}) {  // exact 96-bit sums, as word triples
    list.push_back({"mean_axis",
                    {t},
                    t,
                    OI_KERNEL_MODE_NORMAL,
                    Needs::Nothing,
                    &reduce_kernel<ReduceOp::Mean>});
  }
  for (uint32_t t : dtype_union({kEwFloats, kEwF8, {OI_DTYPE_F64}})) {
    list.push_back({"is_finite",
                    {t},
                    OI_DTYPE_BOOL,
                    OI_KERNEL_MODE_NORMAL,
                    needs_for(t),
                    &reduce_kernel<ReduceOp::AllFinite>});
    list.push_back(
        {"mean_axis", {t}, t, OI_KERNEL_MODE_NORMAL, needs_for(t), &reduce_kernel<ReduceOp::Mean>});
  }
}

const KernelRegistration registration(register_reduce);

}  // namespace
}  // namespace oi::vulkan
