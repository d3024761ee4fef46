// softmax, log_softmax (over `axis`), layer_norm and rms_norm (over the axes from `axis` on) of
// ops-nn.md on shaders/rows.comp, for f32, f16 and bf16 with statistics in f32, and for f64 in
// f64 (the rows_f64 variant, on devices with shaderFloat64).
#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "elementwise.hpp"
#include "ew_ops.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

enum class RowOp : uint32_t { Softmax = 0, LogSoftmax = 1, LayerNorm = 2, RmsNorm = 3 };

uint32_t element_index(const oi_tensor_desc& t) {
  const uint32_t size = dtype_bytes(t.dtype);
  if (t.byte_offset % size != 0) {
    throw abi::StatusError(OI_STATUS_DECLINED,
                           "vulkan: tensor byte offsets must be multiples of the element size");
  }
  return fit32(t.byte_offset / size);
}

template <RowOp Op>
oi_status* row_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  constexpr bool norm = Op == RowOp::LayerNorm || Op == RowOp::RmsNorm;
  const oi_tensor_desc& x = call->inputs[0];
  const oi_tensor_desc& out = call->outputs[0];
  int64_t axis = abi::setting_int(*call, "axis", -1);
  const int64_t rank = x.rank;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1)) {
    throw abi::StatusError(OI_STATUS_INVALID_ARGUMENT, "axis out of range");
  }
  uint64_t outer = 1, n = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const uint64_t dim = x.dims[d];
    if (d < axis) {
      outer *= dim;
    } else if (d == axis || norm) {
      n *= dim;
    } else {
      inner *= dim;
    }
  }
  const uint64_t rows = outer * inner;
  if (rows == 0 || n == 0) return nullptr;
  fit32(rows * n);
  const bool f64 = x.dtype == OI_DTYPE_F64;
  Dispatch job;
  job.shader = f64 ? "rows_f64" : "rows";
  job.float_width = f64 ? 64 : 32;
  job.spec = {static_cast<uint32_t>(Op), static_cast<uint32_t>(f64 ? 0 : ew_dtype_code(x.dtype))};
  job.params.assign(16, 0);
  job.params[0] = fit32(rows);
  job.params[1] = fit32(n);
  job.params[2] = fit32(inner);
  job.params[3] = element_index(x);
  job.params[4] = element_index(out);
  job.buffers[0] = x.buffer;
  if constexpr (norm) {
    job.params[5] = element_index(call->inputs[1]);
    job.buffers[1] = call->inputs[1].buffer;
    if (call->num_inputs > 2) {
      job.params[6] = element_index(call->inputs[2]);
      job.params[7] = 1;
      job.buffers[2] = call->inputs[2].buffer;
    }
    const double eps = abi::setting_float(*call, "epsilon", Op == RowOp::RmsNorm ? 1e-6 : 1e-5);
    if (f64) {
      put_f64(job.params, 8, eps);
    } else {
      job.params[8] = std::bit_cast<uint32_t>(static_cast<float>(eps));
    }
  }
  job.buffers[3] = out.buffer;
  job.output = 3;
  job.groups[0] = fit32(std::min<uint64_t>(rows, 65535));
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void register_rows(std::vector<VulkanKernel>& list) {
  for (uint32_t t : dtype_union({kEwFloats, kEwF8, {OI_DTYPE_F64}})) {
    auto add = [&](const char* op, uint32_t inputs, oi_kernel_fn fn) {
      list.push_back(
          {op, std::vector<uint32_t>(inputs, t), t, OI_KERNEL_MODE_NORMAL, needs_for(t), fn});
    };
    add("softmax", 1, &row_kernel<RowOp::Softmax>);
    add("log_softmax", 1, &row_kernel<RowOp::LogSoftmax>);
    add("layer_norm", 2, &row_kernel<RowOp::LayerNorm>);
    add("layer_norm", 3, &row_kernel<RowOp::LayerNorm>);
    add("rms_norm", 2, &row_kernel<RowOp::RmsNorm>);
  }
}

const KernelRegistration registration(register_rows);

}  // namespace
}  // namespace oi::vulkan
