// attention(q, k, v[, mask]) of ops-nn.md on shaders/attention.comp for f32, f16, bf16 and f64
// (the attention_f64 variant), the mask f32/f16/bf16/f64 (added; an f64 mask to f32/f16/bf16
// rounds to f32 on the attention_m64 variant) or bool (false = masked); `scale` (default
// 1/sqrt(D)) and `causal`. The f64 cases need shaderFloat64.
// Leading dims broadcast (one k/v head serving many q heads): the host lists each output
// batch's element offsets into q, k, v and the mask.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "elementwise.hpp"
#include "ew_ops.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

constexpr uint64_t kMaxHeadDim = 1024;  // MAX_D of the shader
constexpr uint32_t kNoMask = 99;

[[noreturn]] void fail(oi_status_code code, const std::string& why) {
  throw abi::StatusError(code, "attention: " + why);
}

uint32_t element_index(const oi_tensor_desc& t) {
  const uint32_t size = dtype_bytes(t.dtype);
  if (t.byte_offset % size != 0)
    fail(OI_STATUS_UNIMPLEMENTED, "byte offsets must be multiples of the element size");
  return fit32(t.byte_offset / size);
}

// Element strides of `t`'s dims against `shape` (right-aligned; 0 where t broadcasts).
std::vector<uint64_t> strides_against(const oi_tensor_desc& t, const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> s(shape.size(), 0);
  uint64_t stride = 1;
  for (uint32_t k = 0; k < t.rank && k < shape.size(); ++k) {
    const uint32_t td = t.rank - 1 - k;
    const size_t sd = shape.size() - 1 - k;
    if (t.dims[td] != 1) s[sd] = stride;
    stride *= t.dims[td];
  }
  return s;
}

oi_status* attention_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc &q = call->inputs[0], &k = call->inputs[1], &v = call->inputs[2];
  const oi_tensor_desc& out = call->outputs[0];
  const bool has_mask = call->num_inputs > 3;
  if (out.rank < 2) fail(OI_STATUS_INVALID_ARGUMENT, "q, k and v need rank >= 2");
  const uint64_t Tq = q.dims[q.rank - 2], D = q.dims[q.rank - 1];
  const uint64_t Tk = k.dims[k.rank - 2], Dv = v.dims[v.rank - 1];
  std::vector<uint64_t> batch_dims(out.dims, out.dims + out.rank - 2);
  uint64_t batches = 1;
  for (uint64_t d : batch_dims) batches *= d;
  if (batches == 0 || Tq == 0 || Dv == 0) return nullptr;
  if (D > kMaxHeadDim || Dv > kMaxHeadDim) {
    fail(OI_STATUS_UNIMPLEMENTED, "head dims above 1024 on the Vulkan backend");
  }
  // Per tensor: strides of the batch dims (matrices for q/k/v, elements for the mask).
  auto batch_strides = [&](const oi_tensor_desc& t, uint64_t matrix) {
    oi_tensor_desc lead = t;
    lead.rank = t.rank - 2;
    auto s = strides_against(lead, batch_dims);
    for (auto& x : s) x *= matrix;
    return s;
  };
  const auto sq = batch_strides(q, Tq * D), sk = batch_strides(k, Tk * D),
             sv = batch_strides(v, Tk * Dv);
  std::vector<uint64_t> sm(batch_dims.size(), 0);
  uint64_t mask_row = 0, mask_col = 0;
  uint32_t mask_code = kNoMask;
  if (has_mask) {
    const oi_tensor_desc& m = call->inputs[3];
    std::vector<uint64_t> full = batch_dims;
    full.push_back(Tq);
    full.push_back(Tk);
    const auto s = strides_against(m, full);
    std::copy(s.begin(), s.end() - 2, sm.begin());
    mask_row = s[s.size() - 2];
    mask_col = s[s.size() - 1];
    mask_code = static_cast<uint32_t>(wide_dtype_code(m.dtype));
  }
  const bool f64 = q.dtype == OI_DTYPE_F64;
  Dispatch job;
  job.shader = f64 ? "attention_f64" : mask_code == 10 ? "attention_m64" : "attention";
  job.float_width = f64 ? 64 : 32;
  job.also_f64 = !f64 && mask_code == 10;
  job.spec = {static_cast<uint32_t>(f64 ? 0 : ew_dtype_code(q.dtype)), mask_code};
  const double scale = abi::setting_float(*call, "scale", D > 0 ? 1.0 / std::sqrt(double(D)) : 1.0);
  job.params.assign(16, 0);
  job.params[0] = fit32(Tq);
  job.params[1] = fit32(Tk);
  job.params[2] = fit32(D);
  job.params[3] = fit32(Dv);
  job.params[4] = fit32(batches);
  job.params[5] = abi::setting_bool(*call, "causal", false) ? 1 : 0;
  if (f64) {  // low word in 6, high word in 10
    const auto bits = std::bit_cast<uint64_t>(scale);
    job.params[6] = static_cast<uint32_t>(bits);
    job.params[10] = static_cast<uint32_t>(bits >> 32);
  } else {
    job.params[6] = std::bit_cast<uint32_t>(static_cast<float>(scale));
  }
  job.params[7] = fit32(mask_row);
  job.params[8] = fit32(mask_col);
  job.params[9] = element_index(out);
  fit32(job.params[9] + batches * Tq * Dv + 2);
  const uint32_t q0 = element_index(q), k0 = element_index(k), v0 = element_index(v);
  const uint32_t m0 = has_mask ? element_index(call->inputs[3]) : 0;
  for (uint64_t b = 0; b < batches; ++b) {
    uint64_t rest = b, oq = q0, ok = k0, ov = v0, om = m0;
    for (size_t d = batch_dims.size(); d-- > 0;) {
      const uint64_t c = rest % batch_dims[d];
      rest /= batch_dims[d];
      oq += c * sq[d];
      ok += c * sk[d];
      ov += c * sv[d];
      om += c * sm[d];
    }
    for (uint64_t o : {oq, ok, ov, om}) job.params.push_back(fit32(o));
  }
  job.buffers = {q.buffer,   k.buffer, v.buffer, has_mask ? call->inputs[3].buffer : q.buffer,
                 out.buffer, nullptr};
  job.output = 4;
  job.groups = {fit32(std::min<uint64_t>(Tq, 65535)), fit32(std::min<uint64_t>(batches, 65535)), 1};
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void register_attention(std::vector<VulkanKernel>& list) {
  for (uint32_t t : dtype_union({kEwFloats, kEwF8, {OI_DTYPE_F64}})) {
    list.push_back(
        {"attention", {t, t, t}, t, OI_KERNEL_MODE_NORMAL, needs_for(t), &attention_kernel});
    for (uint32_t m :
         {OI_DTYPE_F32, OI_DTYPE_F16, OI_DTYPE_BF16, OI_DTYPE_F8, OI_DTYPE_BOOL, OI_DTYPE_F64}) {
      const Needs needs = t == OI_DTYPE_F64 || m == OI_DTYPE_F64 ? Needs::F64 : Needs::Nothing;
      list.push_back(
          {"attention", {t, t, t, m}, t, OI_KERNEL_MODE_NORMAL, needs, &attention_kernel});
    }
  }
}

const KernelRegistration registration(register_attention);

}  // namespace
}  // namespace oi::vulkan
