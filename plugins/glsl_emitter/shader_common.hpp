// What every kernel shader shares: index and literal helpers, and ShaderBuilder, which binds
// the kernel's values, gathers the helper code its ops need and writes the common frame (header,
// buffer declarations, a grid-stride loop over output elements).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "plan_input.hpp"
#include "shader_writer.hpp"

namespace oi::glsl {

namespace json = boost::json;

constexpr uint64_t kMaxGroups = 65535;  // the smallest maxComputeWorkGroupCount Vulkan allows

uint64_t product(const std::vector<uint64_t>& d, size_t from = 0, size_t to = SIZE_MAX);
std::vector<uint64_t> strides_of(const std::vector<uint64_t>& shape);  // row-major
std::string u(uint64_t v);                                             // "12u"
std::string s(int64_t v);                                              // "12", "(-3)"
bool is_narrow_float(const std::string& dtype);                        // f16, bf16, f8

// The flat index into a value of shape `in` for flat index `var` over shape `out`, with numpy
// broadcasting (right-aligned, size-1 dims repeat).
std::string broadcast_index(const std::vector<uint64_t>& in, const std::vector<uint64_t>& out,
                            const std::string& var);

// Coordinate k of flat index `var` over `dims` ("((i / 12u) % 5u)"), as uint.
std::string coordinate(const std::vector<uint64_t>& dims, size_t k, const std::string& var);

// A literal of GLSL type `type` ("float", "double", "int", "uint") from a setting (number, bool,
// "inf",
// "-inf"); floats as their exact bits.
std::string literal(const json::value& v, const std::string& type, const std::string& where);
// The same value's bits as a uint literal, or a uvec2 for "double" (kernels that move raw
// bits).
std::string literal_bits(const json::value& v, const std::string& type, const std::string& where);
bool is_infinite_setting(const json::value& v);

class ShaderBuilder {
 public:
  ShaderBuilder(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel);

  const PlanIn& plan;
  const DeviceIn& device;
  const KernelIn& kernel;
  std::vector<Binding> bindings;

  const ValueIn& value(const std::string& name) const { return plan.value(name); }
  std::string buffer(const std::string& name) const;  // "b0.d"
  std::string type_of(const std::string& name) const;

  void check_settings(const OpIn& op, const std::set<std::string>& allowed) const;
  const json::value* setting(const OpIn& op, const char* name) const;
  int64_t int_setting(const OpIn& op, const char* name, int64_t fallback) const;
  std::vector<int64_t> int_list(const OpIn& op, const char* name) const;  // [] when absent
  std::string string_setting(const OpIn& op, const char* name, const std::string& fallback) const;

  // The f32 math functions (oi_exp, ...): computed in f64 (plugins/vulkan/shaders/math_f64.glsl,
  // the kernel then needs shaderFloat64) where the device description offers fp64, else in f32
  // arithmetic (math_f32.glsl).
  void use_math(const OpIn& op);
  // math_f64.glsl's f64 functions (exp_f64, ...) for f64 values: refused, naming the device
  // key, when the description says fp64 false.
  void use_f64_math(const OpIn& op);
  // The f64 math with f64 results: wide_floats.glsl and math_f64_full.glsl, the f64 wrappers.
  void use_math64(const OpIn& op);
  // Declares every buffer as uint: the kernel moves 32-bit words, bit for bit, whatever dtype.
  void use_raw_bits() { raw_bits_ = true; }
  // With raw bits: the GLSL word type of a value's elements ("uint"; "uvec2" for 8 bytes,
  // "uint16_t" for f16, "uint8_t" for bool).
  std::string raw_type(const std::string& name) const;
  bool uses_float64() const { return math_ || double_; }

  // Elementwise access to f32/f64/i32/u32 and, through their storage types, the narrow floats
  // f16, bf16 and f8 (computed as f32: loads widen exactly, stores take a value already rounded
  // to the dtype) and bool.
  std::string compute_type(const std::string& name) const;  // narrow -> "float", bool -> "bool"
  std::string load(const std::string& name, const std::string& index) const;
  std::string store(const std::string& name, const std::string& index,
                    const std::string& expr) const;
  // GLSL of the exact narrow-float conversions: the Vulkan backend's half_formats.glsl
  // (narrow_float rounds f32 to nearest even as ops.md, widen_float widens exactly), and
  // oi_round_f16/_bf16/_f8 doing both, oi_odd_f32 rounding f64 to odd.
  void use_narrow_helpers();
  void need_f64(const std::string& what) { need_double(what); }  // shaderFloat64

  // GLSL functions some op needs, written once after the declarations (keyed by `key`).
  void add_helper(const std::string& key, const std::string& text);

  std::string header(const std::string& kind) const;  // with the 8/16-bit storage extensions
  std::string declarations() const;
  uint32_t grid_local_size() const;
  void check_count(uint64_t n, const char* what) const;

  // A grid-stride loop: `body` runs for every i in [0, n) (indented four spaces).
  KernelShader grid(const std::string& kind, uint64_t n, const std::string& body,
                    const std::string& prelude = "") const;

 private:
  void bind(const std::string& name, bool read, bool write);
  void set_entries();  // the table entries the ops name, on their bindings
  std::string storage_type(const std::string& name) const;
  bool has_bits(int bits) const;  // some buffer has 16- (8-)bit elements
  void need_double(const std::string& what);
  std::vector<std::pair<std::string, std::string>> helpers_;
  bool raw_bits_ = false;
  bool double_ = false;  // some value is f64: the device needs shaderFloat64
  bool math_ = false;    // math_f64.glsl and its f32 wrappers
  bool math32_ = false;  // math_f32.glsl and its f32 wrappers (no fp64)
  bool math64_ = false;  // loops marked [[dont_unroll]]: GL_EXT_control_flow_attributes
};

}  // namespace oi::glsl
