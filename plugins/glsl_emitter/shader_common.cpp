// The shared frame of the kernel shaders (shader_common.hpp).
#include "shader_common.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <utility>

#include "embedded_div_f32.inc"  // kDivF32Glsl: plugins/vulkan/shaders/div_f32.glsl
#include "ops.hpp"

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
  std::vector<uint64_t> padded(r - in.size(), 1);
  padded.insert(padded.end(), in.begin(), in.end());
  std::string expr;
  for (size_t d = 0; d < r; ++d) {
    if (padded[d] == 1) continue;
    const uint64_t ostride = product(out, d + 1), istride = product(padded, d + 1);
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
  unsupported(where + ": value " + json::serialize(v) + " is not a number");
}

// The 32 bits of v in `type`.
uint32_t bits_of(const json::value& v, const std::string& type, const std::string& where) {
  const double d = number_of(v, where);
  if (type == "float") return std::bit_cast<uint32_t>(static_cast<float>(d));
  if (d != std::floor(d)) unsupported(where + ": " + json::serialize(v) + " is not an integer");
  if (type == "int") {
    if (d < INT32_MIN || d > INT32_MAX)
      unsupported(where + ": " + json::serialize(v) + " does not fit i32");
    const int64_t i = v.is_int64() ? v.as_int64() : static_cast<int64_t>(d);
    return static_cast<uint32_t>(i);
  }
  if (d < 0 || d > 4294967295.0)
    unsupported(where + ": " + json::serialize(v) + " does not fit u32");
  return static_cast<uint32_t>(d);
}

std::string hex(uint32_t b) {
  std::ostringstream o;
  o << "0x" << std::hex << b << "u";
  return o.str();
}

const char* kFloatHelpers =
    R"(// ops.md min/max: a NaN operand gives NaN, -0.0 counts as less than +0.0.
float oi_min(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a != b) return a < b ? a : b;
  return (floatBitsToUint(a) & 0x80000000u) != 0u ? a : b;
}
float oi_max(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a != b) return a > b ? a : b;
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

}  // namespace

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
}

void ShaderBuilder::need_double(const std::string& what) {
  if (!device.fp64)
    unsupported(what + ": f64 needs shaderFloat64, which the device '" + device.name +
                "' does not offer (features.fp64 false)");
  double_ = true;
}

void ShaderBuilder::add_helper(const std::string& key, const std::string& text) {
  for (const auto& h : helpers_)
    if (h.first == key) return;
  helpers_.emplace_back(key, text);
}

std::string ShaderBuilder::raw_type(const std::string& name) const {
  return plan.value(name).dtype == "f64" ? "uvec2" : "uint";
}

std::string ShaderBuilder::raw_zero(const std::string& name) const {
  return plan.value(name).dtype == "f64" ? "uvec2(0u)" : "0u";
}

void ShaderBuilder::bind(const std::string& name, bool read, bool write) {
  const ValueIn& v = plan.value(name);
  if (v.storage == "internal") return;
  auto it = std::find_if(bindings.begin(), bindings.end(),
                         [&](const Binding& b) { return b.value == name; });
  if (it == bindings.end()) {
    glsl_type(v.dtype, "value '" + name + "'");
    if (v.dtype == "f64") need_double("value '" + name + "'");
    if (device.max_buffer_range && v.bytes > device.max_buffer_range)
      unsupported("value '" + name + "' (" + std::to_string(v.bytes) +
                  " bytes) is larger than the device's max_storage_buffer_range_bytes");
    bindings.push_back({static_cast<uint32_t>(bindings.size()), name, read, write});
    return;
  }
  it->read = it->read || read;
  it->write = it->write || write;
}

std::string ShaderBuilder::buffer(const std::string& name) const {
  for (const Binding& b : bindings)
    if (b.value == name) return "b" + std::to_string(b.binding) + ".d";
  unsupported("value '" + name + "' is read from memory but the plan does not list it in reads");
}

std::string ShaderBuilder::type_of(const std::string& name) const {
  return glsl_type(plan.value(name).dtype, "value '" + name + "'");
}

void ShaderBuilder::check_settings(const OpIn& op, const std::set<std::string>& allowed) const {
  for (const auto& st : op.settings) {
    if (!allowed.count(std::string(st.key())))
      unsupported(op_where(op) + ": setting '" + std::string(st.key()) +
                  "' is not supported by the glsl emitter");
    if (st.value().is_object())
      unsupported(op_where(op) + ": setting '" + std::string(st.key()) +
                  "' names a variable; only literal settings are supported");
  }
}

const json::value* ShaderBuilder::setting(const OpIn& op, const char* name) const {
  return op.settings.if_contains(name);
}

int64_t ShaderBuilder::int_setting(const OpIn& op, const char* name, int64_t fallback) const {
  const json::value* v = setting(op, name);
  if (!v) return fallback;
  if (!v->is_int64()) invalid(op_where(op) + ": '" + name + "' must be an integer");
  return v->as_int64();
}

std::vector<int64_t> ShaderBuilder::int_list(const OpIn& op, const char* name) const {
  std::vector<int64_t> out;
  const json::value* v = setting(op, name);
  if (!v) return out;
  if (!v->is_array()) invalid(op_where(op) + ": '" + name + "' must be a list of integers");
  for (const json::value& e : v->as_array()) {
    if (!e.is_int64()) invalid(op_where(op) + ": '" + name + "' must be a list of integers");
    out.push_back(e.as_int64());
  }
  return out;
}

std::string ShaderBuilder::string_setting(const OpIn& op, const char* name,
                                          const std::string& fallback) const {
  const json::value* v = setting(op, name);
  if (!v) return fallback;
  if (!v->is_string()) invalid(op_where(op) + ": '" + name + "' must be a string");
  return std::string(v->as_string());
}

void ShaderBuilder::use_math(const OpIn& op) {
  if (!device.fp64)
    unsupported(op_where(op) + ": the f32 math is computed in f64, which the device '" +
                device.name + "' does not offer (features.fp64 false)");
  math_ = true;
}

std::string ShaderBuilder::fail(const std::string& message, const std::string& detail) {
  if (errors_.empty())
    bindings.push_back({static_cast<uint32_t>(bindings.size()), kStatusValue, true, true});
  // Codes are unique over the manifest: the kernel id, then the error's number in the kernel.
  const uint32_t code = (kernel.id << 8) | static_cast<uint32_t>(errors_.size() + 1);
  if (errors_.size() >= 255)
    unsupported("kernel " + std::to_string(kernel.id) + ": too many checks");
  errors_.emplace_back(code, message);
  return "oi_fail(" + u(code) + ", uint(" + detail + "));";
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
  return h.str();
}

std::string ShaderBuilder::declarations() const {
  std::ostringstream d;
  if (double_) d << "#define OI_HAS_DOUBLE\n";
  for (const Binding& b : bindings) {
    if (b.value == kStatusValue) {
      d << "layout(std430, set = 0, binding = " << b.binding
        << ") buffer BStatus { uint d[]; } oi_status;  // run-time errors\n"
        << "void oi_fail(uint code, uint detail) {\n"
        << "  if (atomicCompSwap(oi_status.d[0], 0u, code) == 0u) oi_status.d[1] = detail;\n}\n";
      continue;
    }
    const std::string qual = b.read && !b.write ? "readonly " : (!b.read ? "writeonly " : "");
    d << "layout(std430, set = 0, binding = " << b.binding << ") " << qual << "buffer B"
      << b.binding << " { " << (raw_bits_ ? raw_type(b.value) : type_of(b.value)) << " d[]; } b"
      << b.binding << ";  // " << b.value << "\n";
  }
  bool any_float = false;
  if (!raw_bits_) {
    for (const Binding& b : bindings)
      any_float = any_float || (b.value != kStatusValue && is_float_type(type_of(b.value)));
    for (const OpIn& op : kernel.ops) any_float = any_float || is_float_type(type_of(op.output));
  }
  if (any_float) d << kDivF32Glsl << kFloatHelpers;
  if (any_float && double_) d << kDoubleHelpers;
  if (math_) d << math_helpers_glsl();
  for (const auto& [key, text] : helpers_) d << text;
  return d.str();
}

uint32_t ShaderBuilder::grid_local_size() const {
  const uint64_t ls = std::min<uint64_t>({256, device.wg_size[0], device.wg_invocations});
  return static_cast<uint32_t>(std::max<uint64_t>(ls, 1));
}

void ShaderBuilder::check_count(uint64_t n, const char* what) const {
  if (n >= (uint64_t{1} << 31))
    unsupported("kernel " + std::to_string(kernel.id) + ": " + what + " " + std::to_string(n) +
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
  ks.errors = errors_;
  return ks;
}

}  // namespace oi::glsl
