// Params for shaders/ew.comp: element offsets, broadcast strides of up to three inputs with unit
// and contiguous dims collapsed, and each op's settings as bits of its compute type.
#include "ew_ops.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "elementwise.hpp"
#include "int64_mode.hpp"
#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_abi.hpp"
#include "tuning_env.hpp"

namespace oi::vulkan {
namespace {

constexpr uint32_t kHasMask = 1, kHasLo = 2, kHasHi = 4;
constexpr uint32_t kHeaderWords = 16;

// (dim, stride of each of three inputs) per dim, outermost first; contiguous dims merged.
std::vector<uint32_t> broadcast_layout(const oi_tensor_desc& out,
                                       const std::vector<const oi_tensor_desc*>& ins) {
  std::vector<std::vector<uint64_t>> s;
  for (const oi_tensor_desc* in : ins) s.push_back(strides_against(*in, out));
  struct Dim {
    uint64_t size;
    uint64_t st[3];
  };
  std::vector<Dim> dims;  // innermost first while building
  for (uint32_t k = out.rank; k-- > 0;) {
    if (out.dims[k] == 1) continue;
    Dim d{out.dims[k], {0, 0, 0}};
    for (size_t i = 0; i < s.size(); ++i) d.st[i] = s[i][k];
    bool merges = !dims.empty();
    for (size_t i = 0; merges && i < 3; ++i) {
      merges = d.st[i] == dims.back().st[i] * dims.back().size;
    }
    if (merges) {
      dims.back().size *= d.size;
      continue;
    }
    dims.push_back(d);
  }
  std::vector<uint32_t> words;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    words.push_back(fit32(it->size, "a dimension"));
    for (uint64_t st : it->st) words.push_back(fit32(st, "a stride"));
  }
  return words;
}

uint32_t element_offset(const oi_tensor_desc& t) {
  const uint32_t bits = dtype_bits(t.dtype);
  if (bits < 8) return fit32(t.byte_offset * (8 / bits), "an element offset");  // packed
  const uint32_t size = bits / 8;
  if (t.byte_offset % size != 0)
    declined("tensor byte offsets must be multiples of the element size");
  return fit32(t.byte_offset / size, "an element offset");
}

bool is_float_dtype(uint32_t t) {
  return t == OI_DTYPE_F32 || t == OI_DTYPE_F16 || t == OI_DTYPE_BF16 || t == OI_DTYPE_F8;
}

// fill's value as the bits of `dtype`, rounded once from the double (ops.md) or wrapped.
uint32_t fill_bits(const oi_kernel_call& c, uint32_t dtype) {
  const double v = abi::setting_float(c, "value", 0.0);
  switch (dtype) {
    case OI_DTYPE_F32:
      return std::bit_cast<uint32_t>(f64_to_f32(v));
    case OI_DTYPE_F16:
      return f64_to_f16_bits(v);
    case OI_DTYPE_BF16:
      return f64_to_bf16_bits(v);
    case OI_DTYPE_F8:
      return f64_to_f8_bits(v);
    case OI_DTYPE_BOOL:
      return v != 0.0 ? 1 : 0;
    default:
      return static_cast<uint32_t>(abi::setting_int(c, "value", 0));  // masked by the shader
  }
}

uint32_t f32_bits(double v) {
  return std::bit_cast<uint32_t>(static_cast<float>(v));
}

bool is_wide(uint32_t t) {
  return t == OI_DTYPE_F64 || t == OI_DTYPE_I64 || t == OI_DTYPE_U64;
}

// Settings into p[8 + 2k] as bits of the input's compute type: low words for ew.comp (32 bits),
// (low, high) word pairs for ew64.comp's 8-byte dtypes; flags into p[6].
void put_settings(std::vector<uint32_t>& p, EwOp op, const oi_kernel_call& c) {
  const uint32_t in = c.num_inputs > 0 ? c.inputs[0].dtype : c.outputs[0].dtype;
  const bool f64 = in == OI_DTYPE_F64, i64 = in == OI_DTYPE_I64 || in == OI_DTYPE_U64;
  const bool flt = is_float_dtype(in) || f64;
  auto set = [&p](uint32_t k, uint64_t v) {
    p[8 + 2 * k] = static_cast<uint32_t>(v);
    p[9 + 2 * k] = static_cast<uint32_t>(v >> 32);
  };
  auto float_bits = [f64](double v) -> uint64_t {
    return f64 ? std::bit_cast<uint64_t>(v) : f32_bits(v);
  };
  auto int_bits = [i64](int64_t v) -> uint64_t {
    return i64 ? static_cast<uint64_t>(v) : static_cast<uint32_t>(v);
  };
  switch (op) {
    case EwOp::Fill:
      set(0, fill_bits(c, c.outputs[0].dtype));
      break;
    case EwOp::Recip:
    case EwOp::Div:
    case EwOp::FloorDiv:
      if (abi::find_setting(c, "div_by_zero_mask")) {
        p[6] |= kHasMask;
        set(0, flt ? float_bits(abi::setting_float(c, "div_by_zero_mask", 0))
                   : int_bits(abi::setting_int(c, "div_by_zero_mask", 0)));
      }
      break;
    case EwOp::Relu: {
      const char* alpha = abi::find_setting(c, "alpha") ? "alpha" : "negative_slope";
      const double lo = abi::setting_float(c, "clamp_min", -HUGE_VAL);
      const double hi = abi::setting_float(c, "clamp_max", HUGE_VAL);
      if (flt) {  // f8 computes in f32: the settings as f32
        set(0, f32_bits(abi::setting_float(c, alpha, 0.0)));
        set(1, f32_bits(lo));
        set(2, f32_bits(hi));
      } else {
        set(0, static_cast<uint32_t>(abi::setting_int(c, alpha, 0)));
        if (std::isfinite(lo)) {
          p[6] |= kHasLo;
          set(1, static_cast<uint32_t>(abi::setting_int(c, "clamp_min", 0)));
        }
        if (std::isfinite(hi)) {
          p[6] |= kHasHi;
          set(2, static_cast<uint32_t>(abi::setting_int(c, "clamp_max", 0)));
        }
      }
      break;
    }
    case EwOp::Shl:
    case EwOp::Shr:
      set(0, static_cast<uint32_t>(abi::setting_int(c, "bits", 0)));
      break;
    case EwOp::Clamp: {
      const double lo = abi::setting_float(c, "min", -HUGE_VAL);
      const double hi = abi::setting_float(c, "max", HUGE_VAL);
      if (flt) {
        set(0, float_bits(lo));
        set(1, float_bits(hi));
      } else {
        if (std::isfinite(lo)) {
          p[6] |= kHasLo;
          set(0, int_bits(abi::setting_int(c, "min", 0)));
        }
        if (std::isfinite(hi)) {
          p[6] |= kHasHi;
          set(1, int_bits(abi::setting_int(c, "max", 0)));
        }
      }
      break;
    }
    case EwOp::Cast: {
      const std::string_view mode = abi::setting_string(c, "rounding_mode", "trunc");
      const uint32_t code = mode == "trunc" ? 0 : mode == "floor" ? 1 : mode == "ceil" ? 2 : 3;
      if (code == 3 && mode != "nearest_even") {
        throw abi::StatusError(OI_STATUS_INVALID_ARGUMENT,
                               "cast: unknown rounding_mode '" + std::string(mode) + "'");
      }
      set(0, code);
      set(1, abi::setting_bool(c, "saturate", true) ? 1 : 0);
      break;
    }
    case EwOp::Iota: {
      const oi_tensor_desc& out = c.outputs[0];
      if (out.rank == 0) {
        set(0, 1);
        set(1, 1);
        break;
      }
      int64_t axis = abi::setting_int(c, "axis", -1);
      if (axis < 0) axis += out.rank;
      if (axis < 0 || axis >= static_cast<int64_t>(out.rank)) {
        throw abi::StatusError(OI_STATUS_INVALID_ARGUMENT, "iota: axis out of range");
      }
      uint64_t inner = 1;
      for (uint32_t d = static_cast<uint32_t>(axis) + 1; d < out.rank; ++d) inner *= out.dims[d];
      set(0, fit32(out.dims[axis], "a dimension"));
      set(1, fit32(inner, "a stride"));
      break;
    }
    default:
      break;
  }
}

// The f64 ops of math_f64_full.glsl, built into ew64.comp's -DMATH_FULL variant only (a module
// twice the size of the -DF64 one, which the other f64 ops keep compiling quickly).
bool full_f64_math(EwOp op) {
  return op == EwOp::Sin || op == EwOp::Cos || op == EwOp::Erf || op == EwOp::Gelu ||
         op == EwOp::GeluTanh || op == EwOp::Pow;
}

uint32_t num_data_inputs(EwOp op) {
  const auto v = static_cast<uint32_t>(op);
  if (op == EwOp::Iota || op == EwOp::Fill) return 0;
  if ((v >= 20 && v <= 36) || op == EwOp::Pow) return 2;
  return op == EwOp::Fma || op == EwOp::Filter ? 3 : 1;
}

}  // namespace

int ew_dtype_code(uint32_t dtype) {
  switch (dtype) {
    case OI_DTYPE_F32:
      return 0;
    case OI_DTYPE_I32:
      return 1;
    case OI_DTYPE_U32:
      return 2;
    case OI_DTYPE_F16:
      return 3;
    case OI_DTYPE_BF16:
      return 4;
    case OI_DTYPE_I16:
      return 5;
    case OI_DTYPE_U16:
      return 6;
    case OI_DTYPE_I8:
      return 7;
    case OI_DTYPE_U8:
      return 8;
    case OI_DTYPE_BOOL:
      return 9;
    case OI_DTYPE_BITSET:  // computed like u8 (ops.md)
      return 8;
    case OI_DTYPE_F8:
      return 13;
    case OI_DTYPE_I4:
      return 14;
    case OI_DTYPE_I2:
      return 15;
    case OI_DTYPE_I1:
      return 16;
    case OI_DTYPE_U4:
      return 17;
    case OI_DTYPE_U2:
      return 18;
    case OI_DTYPE_U1:
      return 19;
    default:
      return -1;
  }
}

int wide_dtype_code(uint32_t dtype) {
  switch (dtype) {
    case OI_DTYPE_F64:
      return 10;
    case OI_DTYPE_I64:
      return 11;
    case OI_DTYPE_U64:
      return 12;
    default:
      return ew_dtype_code(dtype);
  }
}

void put_f64(std::vector<uint32_t>& params, size_t at, double v) {
  const auto bits = std::bit_cast<uint64_t>(v);
  params.at(at) = static_cast<uint32_t>(bits);
  params.at(at + 1) = static_cast<uint32_t>(bits >> 32);
}

uint32_t dtype_bytes(uint32_t dtype) {
  switch (dtype) {
    case OI_DTYPE_F64:
    case OI_DTYPE_I64:
    case OI_DTYPE_U64:
      return 8;
    case OI_DTYPE_F32:
    case OI_DTYPE_I32:
    case OI_DTYPE_U32:
      return 4;
    case OI_DTYPE_F16:
    case OI_DTYPE_BF16:
    case OI_DTYPE_I16:
    case OI_DTYPE_U16:
      return 2;
    default:
      return 1;
  }
}

uint32_t dtype_bits(uint32_t dtype) {
  switch (dtype) {
    case OI_DTYPE_I1:
    case OI_DTYPE_U1:
      return 1;
    case OI_DTYPE_I2:
    case OI_DTYPE_U2:
      return 2;
    case OI_DTYPE_I4:
    case OI_DTYPE_U4:
      return 4;
    default:
      return 8 * dtype_bytes(dtype);
  }
}

std::vector<uint32_t> dtype_union(std::initializer_list<std::vector<uint32_t>> sets) {
  std::vector<uint32_t> out;
  for (const auto& s : sets) out.insert(out.end(), s.begin(), s.end());
  return out;
}

bool f32_math_in_f64(bool device_has_f64) {
  static const std::string mode = [] {  // read once: math runs on many nodes of every step
    const char* forced = tuning_env("OPENINFER_VULKAN_F32_MATH");
    return std::string(forced != nullptr ? forced : "auto");
  }();
  if (mode == "f32") return false;
  if (mode == "f64") {
    if (!device_has_f64)
      unsupported("OPENINFER_VULKAN_F32_MATH=f64: this device lacks shaderFloat64");
    return true;
  }
  if (mode != "auto") bad_tuning("math", "OPENINFER_VULKAN_F32_MATH", "must be f32, f64 or auto");
  return device_has_f64;
}

oi_status* run_ew(const oi_kernel_call* call, EwOp op) {
  OI_ABI_TRY
  if (op == EwOp::Gelu && abi::setting_string(*call, "approximate", "none") == "tanh") {
    op = EwOp::GeluTanh;
  }
  const oi_tensor_desc& out = call->outputs[0];
  const uint32_t count = fit32(abi::element_count(out), "an element count");
  if (count == 0) return nullptr;
  const uint32_t in_dtype = call->num_inputs > 0 ? call->inputs[0].dtype : out.dtype;
  const int in_code = wide_dtype_code(in_dtype), out_code = wide_dtype_code(out.dtype);
  if (in_code < 0 || out_code < 0) unsupported("dtype not addressable by ew.comp");
  // An 8-byte operand or result: ew64.comp, its f64 build where f64 is involved (casts between
  // f64 and i64/u64 included: word-pair arithmetic), else its i64 build.
  const bool wide = is_wide(in_dtype) || is_wide(out.dtype);
  const bool wide_f64 = in_dtype == OI_DTYPE_F64 || out.dtype == OI_DTYPE_F64;
  const DeviceCaps& caps = caps_of(call->device);
  const bool math = is_math_op(op) && !wide;
  const bool math64 = math && f32_math_in_f64(caps.f64);
  if (wide && wide_f64 && !caps.f64) declined("this device lacks shaderFloat64");

  Dispatch job;
  job.params.assign(kHeaderWords, 0);
  job.params[0] = count;
  job.params[5] = element_offset(out);
  fit32(uint64_t{job.params[5]} + count + 4, "an element offset");
  put_settings(job.params, op, *call);
  const uint32_t n = num_data_inputs(op);
  std::vector<const oi_tensor_desc*> ins;
  for (uint32_t i = 0; i < n; ++i) {
    const oi_tensor_desc& t = call->inputs[i];
    ins.push_back(&t);
    job.params[2 + i] = element_offset(t);
    job.buffers[i] = t.buffer;
  }
  const auto layout = broadcast_layout(out, ins);
  job.params[1] = static_cast<uint32_t>(layout.size() / 4);
  job.params.insert(job.params.end(), layout.begin(), layout.end());
  job.buffers[3] = out.buffer;
  job.output = 3;
  // i64/u64 without f64: native, or emulated in 32-bit words where the device lacks shaderInt64
  const std::string wide_shader = !wide_f64           ? int64_shader("ew64_i", caps)
                                  : full_f64_math(op) ? "ew64_fm"
                                                      : "ew64_f";
  job.shader = wide ? wide_shader : math64 ? "ew_math" : math ? "ew_math32" : "ew";
  job.float_width = 32;
  job.also_f64 = math64 || (wide && wide_f64);
  const int c_code = op == EwOp::Filter ? wide_dtype_code(call->inputs[2].dtype) : 0;
  if (c_code < 0) unsupported("dtype not addressable by ew.comp");
  job.spec = {static_cast<uint32_t>(op), static_cast<uint32_t>(in_code),
              static_cast<uint32_t>(out_code), static_cast<uint32_t>(c_code)};
  const uint32_t per = std::max<uint32_t>(32 / dtype_bits(out.dtype), 1);
  const uint32_t words = (job.params[5] + count + per - 1) / per - job.params[5] / per;
  job.groups[0] = std::min<uint32_t>((words + 255) / 256, 65535);  // the shader strides
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void add_ew_wide(std::vector<VulkanKernel>& list, const char* op, oi_kernel_fn run,
                 uint32_t num_inputs, const std::vector<uint32_t>& dtypes, bool inplace,
                 uint32_t output) {
  for (uint32_t t : dtypes) {
    add_ew(list, op, run, num_inputs, {t}, inplace, output, wide_needs(t));
  }
}

std::vector<uint32_t> accumulate_targets(uint32_t dtype) {
  switch (dtype) {
    case OI_DTYPE_I1:
    case OI_DTYPE_I2:
    case OI_DTYPE_I4:
      return {OI_DTYPE_I8, OI_DTYPE_I16, OI_DTYPE_I32, OI_DTYPE_I64};
    case OI_DTYPE_I8:
      return {OI_DTYPE_I16, OI_DTYPE_I32, OI_DTYPE_I64};
    case OI_DTYPE_I16:
      return {OI_DTYPE_I32, OI_DTYPE_I64};
    case OI_DTYPE_I32:
      return {OI_DTYPE_I64};
    case OI_DTYPE_U1:
    case OI_DTYPE_U2:
    case OI_DTYPE_U4:
      return {OI_DTYPE_U8, OI_DTYPE_U16, OI_DTYPE_U32, OI_DTYPE_U64};
    case OI_DTYPE_U8:
      return {OI_DTYPE_U16, OI_DTYPE_U32, OI_DTYPE_U64};
    case OI_DTYPE_U16:
      return {OI_DTYPE_U32, OI_DTYPE_U64};
    case OI_DTYPE_U32:
      return {OI_DTYPE_U64};
    default:
      return {};
  }
}

void add_ew_accumulate(std::vector<VulkanKernel>& list, const char* op, oi_kernel_fn run,
                       uint32_t num_inputs, const std::vector<uint32_t>& dtypes) {
  for (uint32_t t : dtypes) {
    for (uint32_t acc : accumulate_targets(t)) {
      list.push_back({op, std::vector<uint32_t>(num_inputs, t), acc, OI_KERNEL_MODE_ACCUMULATE,
                      Needs::Nothing, run});
    }
  }
}

Needs wide_needs(uint32_t dtype) {
  return dtype == OI_DTYPE_F64 ? Needs::F64 : Needs::Nothing;  // i64/u64: emulated if need be
}

void add_ew(std::vector<VulkanKernel>& list, const char* op, oi_kernel_fn run, uint32_t num_inputs,
            const std::vector<uint32_t>& dtypes, bool inplace, uint32_t output, Needs needs) {
  for (uint32_t t : dtypes) {
    const uint32_t out = output != 0 ? output : t;
    list.push_back(
        {op, std::vector<uint32_t>(num_inputs, t), out, OI_KERNEL_MODE_NORMAL, needs, run});
    if (inplace) {
      list.push_back(
          {op, std::vector<uint32_t>(num_inputs, t), out, OI_KERNEL_MODE_INPLACE, needs, run});
    }
  }
}

}  // namespace oi::vulkan
