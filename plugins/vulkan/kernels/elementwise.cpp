// Params for shaders/eltwise.comp: broadcast strides with unit and contiguous dims collapsed,
// and the op's settings as bit patterns of the compute type.
#include "elementwise.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>

#include "int64_mode.hpp"
#include "openinfer/broadcast.hpp"
#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_abi.hpp"
#include "tuning_env.hpp"

namespace oi::vulkan {

void unsupported(const std::string& why) {
  throw abi::StatusError(OI_STATUS_UNIMPLEMENTED, "vulkan: " + why);
}

void declined(const std::string& why) {
  throw abi::StatusError(OI_STATUS_DECLINED, "vulkan: " + why);
}

uint32_t fit32(uint64_t v, const char* what) {
  if (v > std::numeric_limits<uint32_t>::max()) declined(std::string(what) + " above 2^32");
  return static_cast<uint32_t>(v);
}

// The SDK's broadcast strides (openinfer/broadcast.hpp) of two tensor descriptors.
std::vector<uint64_t> strides_against(const oi_tensor_desc& in, const oi_tensor_desc& out) {
  return geometry::broadcast_strides(std::span<const uint64_t>(in.dims, in.rank),
                                     std::span<const uint64_t>(out.dims, out.rank));
}

namespace {

// The shaders' DTYPE constant: eltwise.comp takes the first three, eltwise_narrow.comp the rest.
constexpr uint32_t kDtF32 = 0, kDtI32 = 1, kDtW64 = 2, kDtF16 = 3, kDtBF16 = 4;
constexpr uint32_t kHasMask = 1, kHasLo = 2, kHasHi = 4, kPlain = 8;
constexpr uint32_t kHeaderWords = 16;

// Appends (dim, a stride, b stride) triples, outermost first, for the shader's index walk, to
// `words`; returns how many. Built in place: this runs on every elementwise node of a step.
uint32_t append_broadcast_layout(std::vector<uint32_t>& words, const oi_tensor_desc& out,
                                 const oi_tensor_desc& a, const oi_tensor_desc& b) {
  const auto sa = strides_against(a, out), sb = strides_against(b, out);
  struct Dim {
    uint64_t size, sa, sb;
  };
  std::vector<Dim> dims;  // innermost first while building
  dims.reserve(out.rank);
  for (uint32_t k = out.rank; k-- > 0;) {
    if (out.dims[k] == 1) continue;
    Dim d{out.dims[k], sa[k], sb[k]};
    // An outer dim continues the inner one when both operands step through it contiguously.
    if (!dims.empty() && d.sa == dims.back().sa * dims.back().size &&
        d.sb == dims.back().sb * dims.back().size) {
      dims.back().size *= d.size;
      continue;
    }
    dims.push_back(d);
  }
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    words.push_back(fit32(it->size, "a dimension"));
    words.push_back(fit32(it->sa, "a stride"));
    words.push_back(fit32(it->sb, "a stride"));
  }
  return static_cast<uint32_t>(dims.size());
}

// A setting in the dtype's own bits: two words, low first.
void put_setting(std::vector<uint32_t>& p, uint32_t slot, uint32_t dtype, const oi_kernel_call& c,
                 const char* name, double fallback) {
  uint64_t bits = 0;
  switch (dtype) {
    case OI_DTYPE_F16:  // computed in f32 (ops.md), so the settings are f32 too
    case OI_DTYPE_BF16:
    case OI_DTYPE_F32:
      bits = std::bit_cast<uint32_t>(static_cast<float>(abi::setting_float(c, name, fallback)));
      break;
    case OI_DTYPE_F64:
      bits = std::bit_cast<uint64_t>(abi::setting_float(c, name, fallback));
      break;
    case OI_DTYPE_I32:
      bits = static_cast<uint32_t>(static_cast<int32_t>(abi::setting_int(c, name, 0)));
      break;
    default:  // i64
      bits = static_cast<uint64_t>(abi::setting_int(c, name, 0));
  }
  p[6 + 2 * slot] = static_cast<uint32_t>(bits);
  p[7 + 2 * slot] = static_cast<uint32_t>(bits >> 32);
}

bool is_float(uint32_t dtype) {
  return dtype == OI_DTYPE_F32 || dtype == OI_DTYPE_F64 || is_narrow(dtype);
}

void put_op_settings(std::vector<uint32_t>& p, EltwiseOp op, uint32_t dtype,
                     const oi_kernel_call& c) {
  if (op == EltwiseOp::Fill && is_narrow(dtype)) {  // one rounding straight from the double
    const double v = abi::setting_float(c, "value", 0.0);
    p[6] = dtype == OI_DTYPE_F16 ? f64_to_f16_bits(v) : f64_to_bf16_bits(v);
  } else if (op == EltwiseOp::Fill) {
    put_setting(p, 0, dtype, c, "value", 0.0);
  } else if (op == EltwiseOp::Div && abi::find_setting(c, "div_by_zero_mask")) {
    p[5] |= kHasMask;
    put_setting(p, 0, dtype, c, "div_by_zero_mask", 0.0);
  } else if (op == EltwiseOp::Relu) {
    put_setting(p, 0, dtype, c, abi::find_setting(c, "alpha") ? "alpha" : "negative_slope", 0.0);
    const double lo = abi::setting_float(c, "clamp_min", -HUGE_VAL);
    const double hi = abi::setting_float(c, "clamp_max", HUGE_VAL);
    // Floats clamp against +-inf harmlessly; integers clamp only at finite bounds.
    if (is_float(dtype) || std::isfinite(lo)) put_setting(p, 1, dtype, c, "clamp_min", -HUGE_VAL);
    if (is_float(dtype) || std::isfinite(hi)) put_setting(p, 2, dtype, c, "clamp_max", HUGE_VAL);
    if (std::isfinite(lo)) p[5] |= kHasLo;
    if (std::isfinite(hi)) p[5] |= kHasHi;
  }
}

// add, sub, mul and relu have "_exact" variants (f32 and bf16, whose f32 operands and results
// may be subnormal), taken where the device flushes f32 subnormals (device.cpp);
// OPENINFER_VULKAN_EXACT_F32=force takes them on every device, =off never (the driver's
// arithmetic, for timing it), =auto is the default (docs/vulkan.md).
uint8_t exact_f32_mode(EltwiseOp op) {
  if (op != EltwiseOp::Add && op != EltwiseOp::Sub && op != EltwiseOp::Mul && op != EltwiseOp::Relu)
    return 0;
  // Read once (-1: a bad value): this runs on every elementwise node of every step.
  static const int mode = [] {
    const char* forced = tuning_env("OPENINFER_VULKAN_EXACT_F32");
    const std::string text = forced != nullptr ? forced : "auto";
    if (text == "force") return int{kExactAlways};
    if (text == "off") return 0;
    return text == "auto" ? int{kExactWhereFlushed} : -1;
  }();
  if (mode < 0)
    bad_tuning("elementwise", "OPENINFER_VULKAN_EXACT_F32", "must be force, off or auto");
  return static_cast<uint8_t>(mode);
}

// relu f32 with alpha = +-0 and the clamps at -inf and +inf (put_op_settings' bits): max(x, 0),
// which eltwise.comp computes as a select of the bits (HAS_PLAIN).
bool plain_relu(EltwiseOp op, const std::vector<uint32_t>& p) {
  return op == EltwiseOp::Relu && (p[6] & 0x7fffffffu) == 0 && (p[5] & (kHasLo | kHasHi)) == 0 &&
         p[8] == 0xff800000u && p[10] == 0x7f800000u;
}

// f16 and bf16 on shaders/eltwise_narrow.comp: offsets in elements, one invocation a word.
void narrow_job(Dispatch& job, const oi_kernel_call& call, EltwiseOp op, uint32_t count) {
  auto element_offset = [](const oi_tensor_desc& t) {
    if (t.byte_offset % 2 != 0) declined("f16/bf16 tensor byte offsets must be even");
    return fit32(t.byte_offset / 2, "an element offset");
  };
  const oi_tensor_desc& out = call.outputs[0];
  job.params[4] = element_offset(out);
  if (op != EltwiseOp::Fill) {
    const oi_tensor_desc& a = call.inputs[0];
    const oi_tensor_desc& b = call.num_inputs > 1 ? call.inputs[1] : a;
    job.params[2] = element_offset(a);
    job.params[3] = element_offset(b);
    job.buffers[0] = a.buffer;
    job.buffers[1] = b.buffer;
    job.params[1] = append_broadcast_layout(job.params, out, a, b);
  }
  fit32(uint64_t{job.params[4]} + count + 1, "an element offset");
  job.shader = "eltwise_narrow";
  job.spec = {static_cast<uint32_t>(op), out.dtype == OI_DTYPE_F16 ? kDtF16 : kDtBF16};
  job.float_width = 32;
  if (out.dtype == OI_DTYPE_BF16) job.exact_f32 = exact_f32_mode(op);  // f16: all normal in f32
  const uint32_t words = (job.params[4] + count + 1) / 2 - job.params[4] / 2;
  job.groups[0] = std::min<uint32_t>((words + 255) / 256, 65535);
}

// The condition of eltwise.comp's vector path: one dim after collapsing, a contiguous, b
// contiguous or a scalar, word offsets of a, b and y multiples of 4.
bool vector_path(const std::vector<uint32_t>& p) {
  return p[1] == 1 && p[17] == 1 && p[18] <= 1 && ((p[2] | p[3] | p[4]) & 3u) == 0;
}

// Quads per invocation: 1 (on an H200, 2026-11-28, add/relu f32 64M timed as 20 back-to-back
// calls: 1 gave 0.194/0.139 ms, 2 0.197/0.142, 4 0.203/0.151, 8 0.195/0.144; bench/README.md);
// OPENINFER_VULKAN_ELTWISE_UNROLL=1|2|4|8 forces it, for tuning.
uint32_t eltwise_unroll(uint32_t) {
  static const uint32_t unroll = [] {  // read once, as exact_f32_mode
    if (const char* env = std::getenv("OPENINFER_VULKAN_ELTWISE_UNROLL"); env != nullptr) {
      const long u = std::strtol(env, nullptr, 10);
      if (u == 1 || u == 2 || u == 4 || u == 8) return static_cast<uint32_t>(u);
    }
    return 1u;
  }();
  return unroll;
}

}  // namespace

bool is_narrow(uint32_t dtype) {
  return dtype == OI_DTYPE_F16 || dtype == OI_DTYPE_BF16;
}

uint32_t word_offset(const oi_tensor_desc& t) {
  if (t.byte_offset % 4 != 0) declined("tensor byte offsets must be multiples of 4");
  return fit32(t.byte_offset / 4, "a word offset");
}

oi_status* run_eltwise(const oi_kernel_call* call, EltwiseOp op) {
  OI_ABI_TRY
  const oi_tensor_desc& out = call->outputs[0];
  const uint32_t dtype = out.dtype;
  const DeviceCaps& caps = caps_of(call->device);
  const bool int64 = dtype == OI_DTYPE_I64 || dtype == OI_DTYPE_U64;  // u64: i64's bits
  if (dtype == OI_DTYPE_F64 && !caps.f64) declined("this device lacks shaderFloat64");
  const uint32_t count = fit32(abi::element_count(out), "an element count");
  if (count == 0) return nullptr;
  const bool wide = dtype == OI_DTYPE_F64 || int64;

  Dispatch job;
  job.params.reserve(kHeaderWords + 3 * out.rank);  // the layout's triples: no growth
  job.spec.reserve(3);
  job.params.assign(kHeaderWords, 0);
  job.params[0] = count;
  job.buffers[2] = out.buffer;
  put_op_settings(job.params, op, dtype, *call);
  if (is_narrow(dtype)) {
    narrow_job(job, *call, op, count);
    run_dispatch(call->device, job);
    return nullptr;
  }
  job.params[4] = word_offset(out);
  if (op == EltwiseOp::Fill) {  // bits computed here: any width runs on the 32-bit shader
    job.shader = "eltwise_32";
    job.spec = {static_cast<uint32_t>(op), wide ? kDtW64 : kDtF32};
  } else {
    const oi_tensor_desc& a = call->inputs[0];
    const oi_tensor_desc& b = call->num_inputs > 1 ? call->inputs[1] : a;
    job.params[2] = word_offset(a);
    job.params[3] = word_offset(b);
    job.buffers[0] = a.buffer;
    job.buffers[1] = b.buffer;
    job.params[1] = append_broadcast_layout(job.params, out, a, b);
    // i64/u64: native, or emulated in 32-bit words where the device lacks shaderInt64
    job.shader = dtype == OI_DTYPE_F64 ? "eltwise_f64"
                 : int64               ? int64_shader("eltwise_i64", caps)
                                       : "eltwise_32";
    job.spec = {static_cast<uint32_t>(op), dtype == OI_DTYPE_I32 ? kDtI32 : kDtF32};
    job.float_width = dtype == OI_DTYPE_F32 ? 32 : dtype == OI_DTYPE_F64 ? 64 : 0;
    if (dtype == OI_DTYPE_F32) job.exact_f32 = exact_f32_mode(op);
    if (dtype == OI_DTYPE_F32 && plain_relu(op, job.params)) {
      job.params[5] |= kPlain;  // a select of the bits: exact everywhere, no "_exact" variant
      job.exact_f32 = 0;
    }
  }
  job.groups[0] = std::min<uint32_t>((count + 255) / 256, 65535);  // the shader strides
  if (job.shader == "eltwise_32" && op != EltwiseOp::Fill && vector_path(job.params)) {
    // Four elements an invocation (one quad), UNROLL quads a trip: fewer, fuller invocations.
    const uint32_t unroll = eltwise_unroll(count);
    job.spec.push_back(unroll);
    const uint32_t groups = (count / 4 + 256 * unroll - 1) / (256 * unroll);
    job.groups[0] = std::clamp<uint32_t>(groups, 1, 65535);
  }
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void add_eltwise_u64(std::vector<VulkanKernel>& list, const char* op, uint32_t num_inputs,
                     oi_kernel_fn run) {
  for (oi_kernel_mode mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
    list.push_back({op, std::vector<uint32_t>(num_inputs, OI_DTYPE_U64), OI_DTYPE_U64, mode,
                    Needs::Nothing, run});
  }
}

void add_eltwise(std::vector<VulkanKernel>& list, const char* op, uint32_t num_inputs,
                 oi_kernel_fn run) {
  for (uint32_t t :
       {OI_DTYPE_F32, OI_DTYPE_I32, OI_DTYPE_F64, OI_DTYPE_I64, OI_DTYPE_F16, OI_DTYPE_BF16}) {
    for (oi_kernel_mode mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
      list.push_back({op, std::vector<uint32_t>(num_inputs, t), t, mode, needs_for(t), run});
    }
  }
}

}  // namespace oi::vulkan
