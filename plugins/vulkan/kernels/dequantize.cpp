// dequantize(x, scale[, zero_point]) of ops-nn.md on shaders/dequant.comp: x i8, u8, i4, u4
// (packed ones read in place), scale and y f32, f16, bf16, f8 or f64 (the dequant_f64 variant,
// shaderFloat64), per tensor or per channel of `axis`.
#include <algorithm>
#include <limits>
#include <string>

#include "ew_ops.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

[[noreturn]] void fail(oi_status_code code, const std::string& why) {
  throw abi::StatusError(code, "dequantize: " + why);
}

uint32_t fit32(uint64_t v) {
  if (v > std::numeric_limits<uint32_t>::max() / 4) fail(OI_STATUS_DECLINED, "sizes above 2^30");
  return static_cast<uint32_t>(v);
}

bool four_bit(uint32_t t) {
  return t == OI_DTYPE_I4 || t == OI_DTYPE_U4;
}

// The element index of a quantized tensor's first element (4-bit: two a byte).
uint32_t quantized_index(const oi_tensor_desc& t) {
  return fit32(four_bit(t.dtype) ? 2 * t.byte_offset : t.byte_offset);
}

uint32_t float_index(const oi_tensor_desc& t) {
  const uint32_t size = dtype_bytes(t.dtype);
  if (t.byte_offset % size != 0)
    fail(OI_STATUS_DECLINED, "byte offsets must be multiples of the element size");
  return fit32(t.byte_offset / size);
}

oi_status* dequantize_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& x = call->inputs[0];
  const oi_tensor_desc& scale = call->inputs[1];
  const oi_tensor_desc& out = call->outputs[0];
  const uint64_t count = abi::element_count(out);
  if (count == 0) return nullptr;
  uint64_t channels = 1, inner = count;
  if (scale.rank == 1) {
    int64_t axis = abi::setting_int(*call, "axis", 1);
    if (axis < 0) axis += x.rank;
    if (axis < 0 || axis >= static_cast<int64_t>(x.rank))
      fail(OI_STATUS_INVALID_ARGUMENT, "axis out of range");
    channels = x.dims[axis];
    inner = 1;
    for (uint32_t d = static_cast<uint32_t>(axis) + 1; d < x.rank; ++d) inner *= x.dims[d];
  }
  const uint32_t xcode = x.dtype == OI_DTYPE_I8   ? 0
                         : x.dtype == OI_DTYPE_U8 ? 1
                         : x.dtype == OI_DTYPE_I4 ? 2
                                                  : 3;
  const bool f64 = scale.dtype == OI_DTYPE_F64;
  Dispatch job;
  job.shader = f64 ? "dequant_f64" : "dequant";
  job.float_width = f64 ? 64 : 32;
  job.spec = {xcode, static_cast<uint32_t>(f64 ? 0 : ew_dtype_code(scale.dtype))};
  const bool has_zp = call->num_inputs > 2;
  job.params = {
      fit32(count),       fit32(channels),    fit32(std::max<uint64_t>(inner, 1)),
      quantized_index(x), float_index(scale), has_zp ? quantized_index(call->inputs[2]) : 0u,
      float_index(out),   has_zp ? 1u : 0u};
  fit32(job.params[6] + count + 2);
  job.buffers = {x.buffer,   scale.buffer, has_zp ? call->inputs[2].buffer : x.buffer,
                 out.buffer, nullptr,      nullptr};
  job.output = 3;
  job.groups[0] = std::min<uint32_t>(fit32((count + 255) / 256), 65535);
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void register_dequantize(std::vector<VulkanKernel>& list) {
  for (uint32_t q : {OI_DTYPE_I8, OI_DTYPE_U8, OI_DTYPE_I4, OI_DTYPE_U4}) {
    for (uint32_t t : dtype_union({kEwFloats, kEwF8, {OI_DTYPE_F64}})) {
      list.push_back(
          {"dequantize", {q, t}, t, OI_KERNEL_MODE_NORMAL, needs_for(t), &dequantize_kernel});
      list.push_back(
          {"dequantize", {q, t, q}, t, OI_KERNEL_MODE_NORMAL, needs_for(t), &dequantize_kernel});
    }
  }
}

const KernelRegistration registration(register_dequantize);

}  // namespace
}  // namespace oi::vulkan
