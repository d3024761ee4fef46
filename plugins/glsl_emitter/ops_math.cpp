// The elementwise math of ops-nn.md on f32 (and the narrow floats through it): exp, log, sqrt,
// rsqrt, sin, cos, tanh, erf, sigmoid, silu, gelu (approximate "none" and "tanh"), pow. GLSL's own
// exp, log, sin, ... are far less accurate than ops-nn.md's 2 ulp (Vulkan allows 3 ulp and absolute
// errors), so the Vulkan backend's code is used, embedded at build time: on a device with fp64
// each value is computed in f64 with plugins/vulkan/shaders/math_f64.glsl and rounded once to f32
// (NaN, infinities and zeros settled first, with the CPU backend's results; sqrt correctly
// rounded by sqrt_f32_bits); on a device without it in f32 arithmetic with
// plugins/vulkan/shaders/math_f32.glsl (float-float steps, the same special cases, within 1 ulp;
// sqrt correctly rounded). f64 results (within ops-nn.md's 4 ulp) come from the Vulkan backend's
// f64 code, as its ew64 shader computes them: wide_floats.glsl (exp, log, sqrt for every double)
// and math_f64_full.glsl (sin, cos, erf, gelu, pow, double-double steps); they need fp64.
#include "ops.hpp"

#include <sstream>

#include "vulkan_shaders.hpp"  // the backend's shader files, embedded at build time

namespace oi::glsl {
namespace {

// The f32 wrappers. `x` is the argument's bits, `ax` without its sign.
const char* const kMathWrappers = R"(
// f32 math through f64 (math_f64.glsl): specials first, then one rounding to f32.
float oi_quiet(uint x) { return uintBitsToFloat(x | 0x400000u); }
#define OI_NAN uintBitsToFloat(0x7fc00000u)
#define OI_INF uintBitsToFloat(0x7f800000u)
float oi_exp(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0x7f800000u) return x != ax ? 0.0 : a;
  return float(exp_f64(f32_to_f64(x)));
}
float oi_log(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0u) return -OI_INF;
  if (x != ax) return OI_NAN;
  if (ax == 0x7f800000u) return a;
  return float(log_f64(f32_to_f64(x)));
}
float oi_sqrt(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0u) return a;
  if (x != ax) return OI_NAN;
  if (ax == 0x7f800000u) return a;
  return uintBitsToFloat(sqrt_f32_bits(x));
}
float oi_rsqrt(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0u) return uintBitsToFloat(x | 0x7f800000u);
  if (x != ax) return OI_NAN;
  if (ax == 0x7f800000u) return 0.0;
  return float(1.0LF / sqrt(f32_to_f64(x)));
}
float oi_sincos(float a, bool want_cos) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0x7f800000u) return OI_NAN;
  return float(sincos_f64(x, want_cos));
}
float oi_sin(float a) { return oi_sincos(a, false); }
float oi_cos(float a) { return oi_sincos(a, true); }
float oi_tanh(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0u) return a;  // keeps -0
  if (ax == 0x7f800000u) return uintBitsToFloat((x & 0x80000000u) | 0x3f800000u);
  return float(tanh_f64(f32_to_f64(x)));
}
float oi_erf(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0u) return a;
  if (ax == 0x7f800000u) return uintBitsToFloat((x & 0x80000000u) | 0x3f800000u);
  return float(erf_f64(f32_to_f64(x)));
}
float oi_sigmoid(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0x7f800000u) return x != ax ? 0.0 : 1.0;
  return float(1.0LF / (1.0LF + exp_f64(-f32_to_f64(x))));
}
// silu and gelu: +inf stays, -inf gives NaN (inf/inf, inf*0), as the CPU backend computes.
float oi_silu(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0x7f800000u) return x != ax ? OI_NAN : a;
  const double v = f32_to_f64(x);
  return float(v / (1.0LF + exp_f64(-v)));
}
float oi_gelu(float a) {
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0x7f800000u) return x != ax ? OI_NAN : a;
  const double v = f32_to_f64(x);
  return float(v * 0.5LF * erfc_f64(-v * 0.70710678118654752440LF));
}
// pow as C99 (the Vulkan backend's pow_bits): pow(x, 0) = 1 and pow(1, y) = 1 even for NaN,
// otherwise NaN in, NaN out; a negative base needs an integer exponent.
bool oi_odd_integer(double v) {
  return floor(v) == v && abs(v) < 9007199254740992.0LF && mod(v, 2.0LF) == 1.0LF;
}
float oi_pow(float fa, float fb) {
  const uint x = floatBitsToUint(fa), z = floatBitsToUint(fb);
  const uint ax = x & 0x7fffffffu, az = z & 0x7fffffffu;
  if (az == 0u || x == 0x3f800000u) return 1.0;
  if (ax > 0x7f800000u || az > 0x7f800000u) return OI_NAN;
  const double a = f32_to_f64(x), e = f32_to_f64(z);
  if (az == 0x7f800000u) {
    if (ax == 0x3f800000u) return 1.0;  // (-1)^inf
    return (ax > 0x3f800000u) == (z == 0x7f800000u) ? OI_INF : 0.0;
  }
  const uint sign = x != ax && oi_odd_integer(e) ? 0x80000000u : 0u;
  if (ax == 0u) return uintBitsToFloat(e < 0.0LF ? sign | 0x7f800000u : sign);
  if (ax == 0x7f800000u) return uintBitsToFloat(e < 0.0LF ? sign : sign | 0x7f800000u);
  if (x != ax && floor(e) != e) return OI_NAN;
  const float r = float(exp_f64(e * log_f64(abs(a))));
  return uintBitsToFloat(sign | (floatBitsToUint(r) & 0x7fffffffu));
}
float oi_gelu_tanh(float a) {  // a / (1 + e^(-2u)), u = sqrt(2/pi) (a + 0.044715 a^3)
  const uint x = floatBitsToUint(a), ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return oi_quiet(x);
  if (ax == 0x7f800000u) return x != ax ? OI_NAN : a;
  const double v = f32_to_f64(x);
  const double w = 0.7978845608028654LF * (v + 0.044715LF * v * v * v);
  return float(v / (1.0LF + exp_f64(-2.0LF * w)));
}
)";

// The f32 wrappers for a device without fp64: math_f32.glsl's functions work on the bits and
// settle NaN, infinities, zeros and subnormals as the wrappers above do.
const char* const kMath32Wrappers = R"(
// f32 math in f32 arithmetic (math_f32.glsl): the device has no shaderFloat64.
#define OI_M32(f, a) uintBitsToFloat(f(floatBitsToUint(a)))
float oi_exp(float a) { return OI_M32(m32_exp, a); }
float oi_log(float a) { return OI_M32(m32_log, a); }
float oi_sqrt(float a) { return OI_M32(m32_sqrt, a); }
float oi_rsqrt(float a) { return OI_M32(m32_rsqrt, a); }
float oi_sin(float a) { return OI_M32(m32_sin, a); }
float oi_cos(float a) { return OI_M32(m32_cos, a); }
float oi_tanh(float a) { return OI_M32(m32_tanh, a); }
float oi_erf(float a) { return OI_M32(m32_erf, a); }
float oi_sigmoid(float a) { return OI_M32(m32_sigmoid, a); }
float oi_silu(float a) { return OI_M32(m32_silu, a); }
float oi_gelu(float a) { return OI_M32(m32_gelu, a); }
float oi_gelu_tanh(float a) { return OI_M32(m32_gelu_tanh, a); }
float oi_pow(float a, float b) {
  return uintBitsToFloat(m32_pow(floatBitsToUint(a), floatBitsToUint(b)));
}
)";

// The f64 wrappers: NaN in gives the same NaN quieted (pow has its own rules), then as the
// Vulkan backend's ew64.comp (math_op) computes each op, with the CPU backend's specials.
const char* const kMath64Wrappers = R"(
// f64 math (wide_floats.glsl, math_f64_full.glsl), as the Vulkan backend's ew64 shader.
double oi_quiet_d(double v) {
  const uvec2 w = unpackDouble2x32(v);
  return packDouble2x32(uvec2(w.x, w.y | 0x00080000u));
}
#define OI_D_NAN_IN(v) if (is_nan_f64(v)) return oi_quiet_d(v)
double oi_exp_d(double v) { OI_D_NAN_IN(v); return exp_any_f64(v); }
double oi_log_d(double v) { OI_D_NAN_IN(v); return log_any_f64(v); }
double oi_sqrt_d(double v) { OI_D_NAN_IN(v); return sqrt_any_f64(v); }
double oi_rsqrt_d(double v) {
  OI_D_NAN_IN(v);
  const uvec2 x = unpackDouble2x32(v);
  if (is_zero_word_pair(x)) return packDouble2x32(uvec2(0u, (x.y & 0x80000000u) | 0x7ff00000u));
  if ((x.y & 0x80000000u) != 0u) return nan_f64();
  if (is_inf_f64(v)) return 0.0LF;
  return 1.0LF / sqrt_any_f64(v);
}
double oi_sin_d(double v) {
  OI_D_NAN_IN(v);
  return packDouble2x32(sincos_full_f64(unpackDouble2x32(v), false));
}
double oi_cos_d(double v) {
  OI_D_NAN_IN(v);
  return packDouble2x32(sincos_full_f64(unpackDouble2x32(v), true));
}
double oi_tanh_d(double v) {
  OI_D_NAN_IN(v);
  if (is_zero_word_pair(unpackDouble2x32(v))) return v;  // keeps -0
  if (is_inf_f64(v)) return v < 0.0LF ? -1.0LF : 1.0LF;
  return tanh_f64(v);
}
double oi_erf_d(double v) { OI_D_NAN_IN(v); return erf_full_f64(v); }
double oi_sigmoid_d(double v) {
  OI_D_NAN_IN(v);
  if (is_inf_f64(v)) return v < 0.0LF ? 0.0LF : 1.0LF;
  return 1.0LF / (1.0LF + exp_f64(-v));
}
double oi_silu_d(double v) {  // +inf stays, -inf gives NaN (inf / inf)
  OI_D_NAN_IN(v);
  if (is_inf_f64(v)) return v < 0.0LF ? nan_f64() : v;
  return v / (1.0LF + exp_f64(-v));
}
double oi_gelu_d(double v) {
  OI_D_NAN_IN(v);
  return packDouble2x32(gelu_full_f64(unpackDouble2x32(v)));
}
double oi_gelu_tanh_d(double v) {
  OI_D_NAN_IN(v);
  return packDouble2x32(gelu_tanh_full_f64(unpackDouble2x32(v)));
}
double oi_pow_d(double a, double b) {
  return packDouble2x32(pow_full_f64(unpackDouble2x32(a), unpackDouble2x32(b)));
}
)";

// The Vulkan backend's files name each other with #include; here they are pasted in order.
std::string without_includes(const char* text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line))
    out += (line.rfind("#include", 0) == 0 ? "// (included above) " + line : line) + "\n";
  return out;
}

std::string math(ShaderBuilder& sb, const OpIn& op, const std::vector<std::string>& args) {
  const std::string type = sb.compute_type(op.output);
  if (type != "float" && type != "double")
    decline(op_where(op) + " on " + sb.value(op.output).dtype +
            " is not supported (f32, f64, and f16/bf16/f8 through f32, are)");
  const bool d = type == "double";
  const std::string suffix = d ? "_d" : "";
  auto use = [&] { d ? sb.use_math64(op) : sb.use_math(op); };
  if (op.op == "pow") {
    sb.check_settings(op, {});
    if (args.size() != 2) invalid_plan(op_where(op) + ": expected 2 inputs");
    use();
    return "oi_pow" + suffix + "(" + args[0] + ", " + args[1] + ")";
  }
  if (args.size() != 1) invalid_plan(op_where(op) + ": expected 1 input");
  std::string fn = "oi_" + op.op;
  if (op.op == "gelu") {
    sb.check_settings(op, {"approximate"});
    const std::string mode = sb.string_setting(op, "approximate", "none");
    if (mode != "none" && mode != "tanh")
      decline(op_where(op) + ": approximate '" + mode + "' (none and tanh are supported)");
    if (mode == "tanh") fn = "oi_gelu_tanh";
  } else {
    sb.check_settings(op, {});
  }
  use();
  return fn + suffix + "(" + args[0] + ")";
}

}  // namespace

const std::string& math_helpers_glsl() {
  static const std::string text = std::string(shader_file("math_f64.glsl")) + kMathWrappers;
  return text;
}

const std::string& math32_helpers_glsl() {
  static const std::string text = without_includes(shader_file("math_f32.glsl")) + kMath32Wrappers;
  return text;
}

const std::string& math64_helpers_glsl() {
  static const std::string text = without_includes(shader_file("wide_floats.glsl")) +
                                  without_includes(shader_file("math_f64_full.glsl")) +
                                  kMath64Wrappers;
  return text;
}

void register_math_ops(OpRegistry& r) {
  for (const char* op : {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "sigmoid",
                         "silu", "gelu", "pow"})
    r.math[op] = math;
}

}  // namespace oi::glsl
