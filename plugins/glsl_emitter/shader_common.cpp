// The shared frame of the kernel shaders (shader_common.hpp).
#include "shader_common.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <utility>

#include "openinfer/broadcast.hpp"
#include "ops.hpp"
#include "vulkan_shaders.hpp"

namespace oi::glsl {

uint64_t product(const std::vector<uint64_t>& d, size_t from, size_t to) {
  uint64_t p = 1;
  for (size_t i = from; i < std::min(to, d.size()); ++i) p *= d[i];
  return p;
}

std::vector<uint64_t> strides_of(const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> st(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) st[k - 1] = st[k] * shape[k];
  return st;
}

std::string u(uint64_t v) {
  return std::to_string(v) + "u";
}

std::string s(int64_t v) {
  return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
}

std::string broadcast_index(const std::vector<uint64_t>& in, const std::vector<uint64_t>& out,
                            const std::string& var) {
  if (in == out) return var;
  if (product(in) == 1) return "0u";
  const size_t r = out.size();
  const std::vector<uint64_t> in_strides = geometry::broadcast_strides(in, out);  // the SDK's
  std::string expr;
  for (size_t d = 0; d < r; ++d) {
    if (in_strides[d] == 0) continue;  // the input repeats along d
    const uint64_t ostride = product(out, d + 1), istride = in_strides[d];
    std::string term = "(" + var + (ostride == 1 ? "" : " / " + u(ostride)) + ")";
    if (d > 0) term = "(" + term + " % " + u(out[d]) + ")";
    if (istride != 1) term += " * " + u(istride);
    expr += (expr.empty() ? "" : " + ") + term;
  }
  return expr.empty() ? "0u" : "(" + expr + ")";
}

std::string coordinate(const std::vector<uint64_t>& dims, size_t k, const std::string& var) {
  if (dims[k] == 1) return "0u";
  const uint64_t inner = product(dims, k + 1);
  std::string e = inner == 1 ? var : "(" + var + " / " + u(inner) + ")";
  if (k > 0) e = "(" + e + " % " + u(dims[k]) + ")";
  return e;
}

namespace {

double number_of(const json::value& v, const std::string& where) {
  if (v.is_int64()) return static_cast<double>(v.as_int64());
  if (v.is_uint64()) return static_cast<double>(v.as_uint64());
  if (v.is_double()) return v.as_double();
  if (v.is_bool()) return v.as_bool() ? 1 : 0;
  if (v.is_string() && (v.as_string() == "inf" || v.as_string() == "-inf"))
    return v.as_string() == "inf" ? INFINITY : -INFINITY;
  decline(where + ": value " + json::serialize(v) + " is not a number");
}

// The 32 bits of v in `type`.
uint32_t bits_of(const json::value& v, const std::string& type, const std::string& where) {
  const double d = number_of(v, where);
  if (type == "float") return std::bit_cast<uint32_t>(static_cast<float>(d));
  if (d != std::floor(d)) decline(where + ": " + json::serialize(v) + " is not an integer");
  if (type == "int") {
    if (d < INT32_MIN || d > INT32_MAX)
      decline(where + ": " + json::serialize(v) + " does not fit i32");
    const int64_t i = v.is_int64() ? v.as_int64() : static_cast<int64_t>(d);
    return static_cast<uint32_t>(i);
  }
  if (d < 0 || d > 4294967295.0) decline(where + ": " + json::serialize(v) + " does not fit u32");
  return static_cast<uint32_t>(d);
}

std::string hex(uint32_t b) {
  std::ostringstream o;
  o << "0x" << std::hex << b << "u";
  return o.str();
}

const char* kFloatHelpers =
    R"(// ops.md min/max: a NaN operand gives NaN, -0.0 counts as less than +0.0.
// Compared on the bits (shaders/exact_f32.glsl), so a subnormal is not taken for a zero.
float oi_min(float a, float b) {
  if (oi_nan(a) || oi_nan(b)) return a + b;
  if (!oi_eq(a, b)) return oi_lt(a, b) ? a : b;
  return (floatBitsToUint(a) & 0x80000000u) != 0u ? a : b;
}
float oi_max(float a, float b) {
  if (oi_nan(a) || oi_nan(b)) return a + b;
  if (!oi_eq(a, b)) return oi_gt(a, b) ? a : b;
  return (floatBitsToUint(a) & 0x80000000u) != 0u ? b : a;
}
float oi_div(float a, float b) { return uintBitsToFloat(div_f32_bits(floatBitsToUint(a), floatBitsToUint(b))); }
)";

const char* kDoubleHelpers =
    R"(double oi_min(double a, double b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a != b) return a < b ? a : b;
  return (unpackDouble2x32(a).y & 0x80000000u) != 0u ? a : b;
}
double oi_max(double a, double b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a != b) return a > b ? a : b;
  return (unpackDouble2x32(a).y & 0x80000000u) != 0u ? b : a;
}
)";

// After the Vulkan backend's half_formats.glsl (f32 <-> f16/bf16/f8 on the bits, one rounding
// to nearest even, as plugin_api/include/openinfer/float_formats.hpp; no conversion mode of the
// driver matters): an f32 value rounded to a narrow float and widened back exactly.
const char* const kNarrowHelpers =
    R"(float oi_round_f16(float f) { return widen_float(narrow_float(f, 3u), 3u); }
float oi_round_bf16(float f) { return widen_float(narrow_float(f, 4u), 4u); }
float oi_round_f8(float f) { return widen_float(narrow_float(f, 13u), 13u); }
#ifdef OI_HAS_DOUBLE
// d rounded to f32 to odd (an inexact result gets an odd last bit): a second rounding to a
// narrower float then equals one rounding of d (f64, or integers widened to f64).
float oi_odd_f32(double d) {
  const uvec2 w = unpackDouble2x32(d);
  const uint h = w.y & 0x7fffffffu;
  if (h > 0x7ff00000u || (h == 0x7ff00000u && w.x != 0u)) return float(d);  // NaN
  const float f = float(d);
  if (double(f) == d) return f;
  uint b = floatBitsToUint(f);
  if ((b & 1u) == 0u) b = abs(double(f)) > abs(d) ? b - 1u : b + 1u;
  return uintBitsToFloat(b);
}
#endif
)";

}  // namespace

bool storable_dtype(const std::string& dtype) {
  static const std::set<std::string> ok = {"f32",  "f64", "i32", "u32", "f16",
                                           "bf16", "f8",  "i64", "u64", "bool"};
  return ok.count(dtype) > 0;
}

// A double's bits as (low word, high word).
std::pair<uint32_t, uint32_t> double_words(const json::value& v, const std::string& where) {
  const auto b = std::bit_cast<uint64_t>(number_of(v, where));
  return {static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32)};
}

std::string literal(const json::value& v, const std::string& type, const std::string& where) {
  if (type == "double") {
    const auto [lo, hi] = double_words(v, where);
    return "packDouble2x32(uvec2(" + hex(lo) + ", " + hex(hi) + "))";
  }
  const uint32_t b = bits_of(v, type, where);
  if (type == "float") return "uintBitsToFloat(" + hex(b) + ")";
  if (type == "int") return "int(" + hex(b) + ")";
  return u(b);
}

std::string literal_bits(const json::value& v, const std::string& type, const std::string& where) {
  if (type == "double") {
    const auto [lo, hi] = double_words(v, where);
    return "uvec2(" + hex(lo) + ", " + hex(hi) + ")";
  }
  return hex(bits_of(v, type, where));
}

bool is_infinite_setting(const json::value& v) {
  if (v.is_string()) return v.as_string() == "inf" || v.as_string() == "-inf";
  return v.is_double() && std::isinf(v.as_double());
}

ShaderBuilder::ShaderBuilder(const PlanIn& p, const DeviceIn& d, const KernelIn& k)
    : plan(p), device(d), kernel(k) {
  for (const std::string& r : kernel.reads) bind(r, true, false);
  for (const std::string& w : kernel.writes) bind(w, false, true);
  for (const OpIn& op : kernel.ops)
    if (plan.value(op.output).dtype == "f64") need_double(op_where(op));
  set_entries();
}

// Each entry of a table the ops name gets a binding of its own (the same entry read and written
// one binding), in place of the table's binding from the kernel's reads and writes.
void ShaderBuilder::set_entries() {
  std::vector<Binding> entries;
  auto mark = [&](const std::string& text, const OpIn& op, bool write, const std::string& at) {
    const ValueRef ref = parse_ref(text);
    if (ref.index.empty()) return;
    plan.value(text);  // checks the index count, refuses windows
    if (std::none_of(bindings.begin(), bindings.end(),
                     [&](const Binding& b) { return b.value == ref.name; }))
      invalid_plan(op_where(op) + ": table '" + ref.name +
                   "' is not among the kernel's reads or writes");
    for (Binding& b : entries)
      if (b.value == ref.name && b.entry == ref.index) {
        b.read = b.read || !write;
        b.write = b.write || write;
        return;
      }
    entries.push_back({0, ref.name, !write, write, ref.index, at});
  };
  for (const OpIn& op : kernel.ops) {
    for (size_t i = 0; i < op.inputs.size(); ++i)
      mark(op.inputs[i], op, false, i < op.inputs_at.size() ? op.inputs_at[i] : std::string());
    mark(op.output, op, true, op.output_at);
  }
  std::vector<Binding> out;
  for (const Binding& b : bindings) {
    if (!plan.value(b.value).is_table()) {
      out.push_back(b);
      continue;
    }
    const size_t before = out.size();
    for (const Binding& e : entries)
      if (e.value == b.value) out.push_back(e);
    if (out.size() == before)
      decline("kernel " + std::to_string(kernel.id) + ": table '" + b.value +
              "' is used without an entry");
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].binding = static_cast<uint32_t>(i);
  bindings = std::move(out);
}

bool ShaderBuilder::has_bits(int bits) const {
  for (const Binding& b : bindings) {
    const std::string& d = plan.value(b.value).dtype;
    if ((bits == 16 && (d == "f16" || d == "bf16")) || (bits == 8 && (d == "bool" || d == "f8")))
      return true;
  }
  return false;
}

namespace {

// The exponent and mantissa bits of the narrow floats, computed as f32.
// A narrow float's code in half_formats.glsl (ew.comp's dtype codes).
struct Narrow {
  const char* code;
};
const Narrow* narrow_of(const std::string& dtype) {
  static const Narrow f16{"3u"}, bf16{"4u"}, f8{"13u"};
  return dtype == "f16" ? &f16 : dtype == "bf16" ? &bf16 : dtype == "f8" ? &f8 : nullptr;
}

}  // namespace

bool is_narrow_float(const std::string& dtype) {
  return narrow_of(dtype) != nullptr;
}

std::string ShaderBuilder::storage_type(const std::string& name) const {
  const std::string& d = plan.value(name).dtype;
  if (d == "f16" || d == "bf16") return "uint16_t";
  if (d == "bool" || d == "f8") return "uint8_t";
  if (d == "i64" || d == "u64") return "uvec2";
  return type_of(name);
}

std::string ShaderBuilder::compute_type(const std::string& name) const {
  const std::string& d = plan.value(name).dtype;
  if (is_narrow_float(d)) return "float";
  if (d == "bool") return "bool";
  return type_of(name);
}

void ShaderBuilder::use_narrow_helpers() {
  static const std::string text = shader_file("half_formats.glsl") + std::string(kNarrowHelpers);
  add_helper("narrow", text);
}

std::string ShaderBuilder::load(const std::string& name, const std::string& index) const {
  const std::string& d = plan.value(name).dtype;
  const std::string e = buffer(name) + "[" + index + "]";
  if (const Narrow* n = narrow_of(d)) return "widen_float(uint(" + e + "), " + n->code + ")";
  if (d == "bool") return "(uint(" + e + ") != 0u)";
  type_of(name);
  return e;
}

std::string ShaderBuilder::store(const std::string& name, const std::string& index,
                                 const std::string& expr) const {
  const std::string& d = plan.value(name).dtype;
  const std::string e = buffer(name) + "[" + index + "] = ";
  if (const Narrow* n = narrow_of(d))
    return e + storage_type(name) + "(narrow_float(" + expr + ", " + n->code + "));";
  if (d == "bool") return e + "uint8_t(" + expr + " ? 1u : 0u);";
  type_of(name);
  return e + expr + ";";
}

void ShaderBuilder::need_double(const std::string& what) {
  if (!device.fp64) device_limit(device, what, "f64 needs shaderFloat64", "features.fp64 false");
  double_ = true;
}

void ShaderBuilder::add_helper(const std::string& key, const std::string& text) {
  for (const auto& h : helpers_)
    if (h.first == key) return;
  helpers_.emplace_back(key, text);
}

std::string ShaderBuilder::raw_type(const std::string& name) const {
  const std::string& d = plan.value(name).dtype;
  if (d == "f64" || d == "i64" || d == "u64") return "uvec2";
  if (d == "f16" || d == "bf16") return "uint16_t";
  if (d == "bool" || d == "f8") return "uint8_t";
  return "uint";
}

void ShaderBuilder::bind(const std::string& name, bool read, bool write) {
  const ValueIn& v = plan.value(name);
  if (v.storage == "internal") return;
  const std::string base = parse_ref(name).name;
  auto it = std::find_if(bindings.begin(), bindings.end(),
                         [&](const Binding& b) { return b.value == base; });
  if (it == bindings.end()) {
    if (!storable_dtype(v.dtype))
      decline("value '" + name + "': dtype " + v.dtype +
              " is not supported (f32, f64, i32, u32, f16, bf16, f8, bool, i64 and u64 are, "
              "the last six where the op supports them)");
    if (v.dtype == "f64") need_double("value '" + name + "'");
    if ((v.dtype == "f16" || v.dtype == "bf16") && !device.fp16)
      device_limit(device, "value '" + name + "'", v.dtype + " buffers need 16-bit storage",
                   "features.fp16 false");
    if (device.max_buffer_range && v.bytes > device.max_buffer_range)
      device_limit(
          device, "value '" + name + "'", "a buffer of " + std::to_string(v.bytes) + " bytes",
          "limits.max_storage_buffer_range_bytes " + std::to_string(device.max_buffer_range));
    bindings.push_back({static_cast<uint32_t>(bindings.size()), base, read, write, {}, {}});
    return;
  }
  it->read = it->read || read;
  it->write = it->write || write;
}

std::string ShaderBuilder::buffer(const std::string& name) const {
  const ValueRef ref = parse_ref(name);
  for (const Binding& b : bindings)
    if (b.value == ref.name && (ref.index.empty() || b.entry == ref.index))
      return "b" + std::to_string(b.binding) + ".d";
  decline("value '" + name + "' is read from memory but the plan does not list it in reads");
}

std::string ShaderBuilder::type_of(const std::string& name) const {
  return glsl_type(plan.value(name).dtype, "value '" + name + "'");
}

void ShaderBuilder::check_settings(const OpIn& op, const std::set<std::string>& allowed) const {
  for (const auto& st : op.settings) {
    if (!allowed.count(std::string(st.key())))
      decline(op_where(op) + ": setting '" + std::string(st.key()) +
              "' is not supported by the glsl emitter");
    if (st.value().is_object())
      decline(op_where(op) + ": setting '" + std::string(st.key()) +
              "' names a variable; only literal settings are supported");
  }
}

const json::value* ShaderBuilder::setting(const OpIn& op, const char* name) const {
  return op.settings.if_contains(name);
}

int64_t ShaderBuilder::int_setting(const OpIn& op, const char* name, int64_t fallback) const {
  const json::value* v = setting(op, name);
  if (!v) return fallback;
  if (!v->is_int64()) invalid_plan(op_where(op) + ": '" + name + "' must be an integer");
  return v->as_int64();
}

std::vector<int64_t> ShaderBuilder::int_list(const OpIn& op, const char* name) const {
  std::vector<int64_t> out;
  const json::value* v = setting(op, name);
  if (!v) return out;
  if (!v->is_array()) invalid_plan(op_where(op) + ": '" + name + "' must be a list of integers");
  for (const json::value& e : v->as_array()) {
    if (!e.is_int64()) invalid_plan(op_where(op) + ": '" + name + "' must be a list of integers");
    out.push_back(e.as_int64());
  }
  return out;
}

std::string ShaderBuilder::string_setting(const OpIn& op, const char* name,
                                          const std::string& fallback) const {
  const json::value* v = setting(op, name);
  if (!v) return fallback;
  if (!v->is_string()) invalid_plan(op_where(op) + ": '" + name + "' must be a string");
  return std::string(v->as_string());
}

void ShaderBuilder::use_math(const OpIn&) {
  if (device.fp64)
    math_ = true;
  else
    math32_ = true;
}

void ShaderBuilder::use_f64_math(const OpIn& op) {
  need_double(op_where(op));
  math_ = true;
}

void ShaderBuilder::use_math64(const OpIn& op) {
  use_f64_math(op);
  math64_ = true;
  add_helper("math64", math64_helpers_glsl());
}

std::string ShaderBuilder::header(const std::string& kind) const {
  std::ostringstream h;
  h << "#version 450\n// Generated by the OpenInfer glsl emitter: kernel " << kernel.id << " ("
    << kind << ") of " << (plan.graph.empty() ? "the graph" : plan.graph) << "\n// ops:";
  for (const OpIn& op : kernel.ops) h << " " << op.op << "@" << op.line;
  // Built a second time with -DOI_IEEE_SPECIALS (kernel_K_ieee.spv) for devices that offer
  // shaderSignedZeroInfNanPreserveFloat32: without the mode, drivers may assume no inf/NaN.
  h << "\n#ifdef OI_IEEE_SPECIALS\n#extension GL_EXT_spirv_intrinsics : require\n"
       "spirv_execution_mode(extensions = [\"SPV_KHR_float_controls\"], capabilities = [4466], "
       "4461, 32);\n#endif\n";
  if (has_bits(16)) h << "#extension GL_EXT_shader_16bit_storage : require\n";
  if (has_bits(8)) h << "#extension GL_EXT_shader_8bit_storage : require\n";
  if (math64_) h << "#extension GL_EXT_control_flow_attributes : require\n";
  return h.str();
}

std::string ShaderBuilder::declarations() const {
  std::ostringstream d;
  if (double_) d << "#define OI_HAS_DOUBLE\n";
  for (const Binding& b : bindings) {
    const std::string qual = b.read && !b.write ? "readonly " : (!b.read ? "writeonly " : "");
    d << "layout(std430, set = 0, binding = " << b.binding << ") " << qual << "buffer B"
      << b.binding << " { " << (raw_bits_ ? raw_type(b.value) : storage_type(b.value))
      << " d[]; } b" << b.binding << ";  // " << b.value << "\n";
  }
  bool any_float = false;
  if (!raw_bits_) {
    auto is_float = [&](const std::string& name) {
      const std::string& d = plan.value(name).dtype;
      return d == "f32" || d == "f64" || is_narrow_float(d);
    };
    for (const Binding& b : bindings) any_float = any_float || is_float(b.value);
    for (const OpIn& op : kernel.ops) any_float = any_float || is_float(op.output);
  }
  if (any_float) d << shader_file("div_f32.glsl") << shader_file("exact_f32.glsl") << kFloatHelpers;
  if (any_float && double_) d << kDoubleHelpers;
  if (math_) d << math_helpers_glsl();
  if (math32_) d << math32_helpers_glsl();
  for (const auto& [key, text] : helpers_) d << text;
  return d.str();
}

uint32_t ShaderBuilder::grid_local_size() const {
  const uint64_t ls = std::min<uint64_t>({256, device.wg_size[0], device.wg_invocations});
  return static_cast<uint32_t>(std::max<uint64_t>(ls, 1));
}

void ShaderBuilder::check_count(uint64_t n, const char* what) const {
  if (n >= (uint64_t{1} << 31))
    decline("kernel " + std::to_string(kernel.id) + ": " + what + " " + std::to_string(n) +
            " is 2^31 or more (32-bit indices)");
}

KernelShader ShaderBuilder::grid(const std::string& kind, uint64_t n, const std::string& body,
                                 const std::string& prelude) const {
  KernelShader ks;
  const uint32_t ls = grid_local_size();
  check_count(n + uint64_t{ls} * kMaxGroups, "element count");
  std::ostringstream g;
  g << header(kind) << "layout(local_size_x = " << ls << ") in;\n"
    << declarations() << prelude << "void main() {\n  const uint n = " << u(n)
    << ";\n  const uint stride = gl_NumWorkGroups.x * " << u(ls)
    << ";\n  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {\n"
    << body << "  }\n}\n";
  ks.glsl = g.str();
  ks.local_size = {ls, 1, 1};
  ks.workgroups = {std::min<uint64_t>((n + ls - 1) / ls, kMaxGroups), 1, 1};
  ks.bindings = bindings;
  ks.float64 = math_ || double_;
  return ks;
}

}  // namespace oi::glsl
