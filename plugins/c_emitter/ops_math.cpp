// The elementwise math of ops-nn.md in generated C (f32, f64, f16, bf16, f8): exp, log, sqrt,
// rsqrt, sin, cos, tanh, erf, sigmoid, silu, gelu (exact and tanh), pow. As the CPU backend does
// (float_math.hpp), each op is computed in double with libm and an f32 result is rounded once to
// f32, so results agree bit for bit with the simulator on the same libm (ops-nn.md allows 2 ulp in
// f32). f16, bf16 and f8 operands are widened exactly to f32 and take that f32 result, rounded once
// to their own dtype (the CPU backend's float_math.hpp).

#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

// The double forms. sigmoid and silu as 1/(1+e^-a) and a/(1+e^-a); gelu "none" as
// a/2 * erfc(-a/sqrt(2)) (large negative a keeps its relative accuracy), "tanh" as
// a / (1 + e^(-2u)), u = sqrt(2/pi) (a + 0.044715 a^3): the CPU backend's formulas.
const char* const kMathHelpersC =
    R"C(static inline OI_HELPER double oi_sigmoid(double a) { return 1.0 / (1.0 + exp(-a)); }
static inline OI_HELPER double oi_silu(double a) { return a / (1.0 + exp(-a)); }
static inline OI_HELPER double oi_rsqrt(double a) { return 1.0 / sqrt(a); }
static inline OI_HELPER double oi_gelu(double a) { return a * 0.5 * erfc(-a * 0.7071067811865476); }
static inline OI_HELPER double oi_gelu_tanh(double a) {
  const double u = 0.7978845608028654 * (a + 0.044715 * a * a * a);
  return a / (1.0 + exp(-2.0 * u));
}

)C";

std::string math(const ElementwiseCall& e) {
  if (e.dtype == "f16" || e.dtype == "bf16" || e.dtype == "f8") {
    std::vector<std::string> wide;
    for (const auto& x : e.args) wide.push_back("oi_" + e.dtype + "_to_f32(" + x + ")");
    const std::string f32 = "f32";
    return "oi_f32_to_" + e.dtype + "(" + math({e.op, f32, f32, wide, e.settings, e.where}) + ")";
  }
  if (e.dtype != "f32" && e.dtype != "f64")
    throw LibraryInstead("c emitter: " + e.where + " on " + e.dtype +
                         ": left to the C kernel library");
  std::string fn = e.op;
  if (e.op == "sigmoid" || e.op == "silu" || e.op == "rsqrt") fn = "oi_" + e.op;
  if (e.op == "gelu") {
    check_settings(e.settings, {"approximate"}, e.where);
    const std::string mode =
        e.settings.contains("approximate") ? str(e.settings.at("approximate")) : "none";
    if (mode != "none" && mode != "tanh")
      throw LibraryInstead("c emitter: " + e.where + ": approximate '" + mode + "'");
    fn = mode == "tanh" ? "oi_gelu_tanh" : "oi_gelu";
  } else {
    check_settings(e.settings, {}, e.where);
  }
  if (e.op == "pow") {  // a^b as C's pow, numpy broadcasting (the kernel's index arithmetic)
    if (e.dtype == "f64") return "pow(" + e.args[0] + ", " + e.args[1] + ")";
    if (emit_profile().float_math) return "powf(" + e.args[0] + ", " + e.args[1] + ")";
    return "(float)pow((double)" + e.args[0] + ", (double)" + e.args[1] + ")";
  }
  if (e.dtype == "f64") return fn + "(" + e.args[0] + ")";
  // The freestanding profile on an FPU without doubles (a Cortex-M4F): libm's float functions,
  // within a few ulp of the double forms' results (more in the far tails of the compound forms,
  // gelu's tanh form at large negative inputs; docs/synth.md).
  if (emit_profile().float_math) {
    const std::string a = "(" + e.args[0] + ")";
    if (e.op == "sigmoid") return "(1.0f / (1.0f + expf(-" + a + ")))";
    if (e.op == "silu") return "(" + a + " / (1.0f + expf(-" + a + ")))";
    if (e.op == "rsqrt") return "(1.0f / sqrtf(" + a + "))";
    if (fn == "oi_gelu") return "(" + a + " * 0.5f * erfcf(-" + a + " * 0.70710678f))";
    if (fn == "oi_gelu_tanh")
      return "(" + a + " / (1.0f + expf(-2.0f * (0.79788456f * (" + a + " + 0.044715f * " + a +
             " * " + a + " * " + a + ")))))";
    return e.op + "f(" + e.args[0] + ")";
  }
  return "(float)" + fn + "((double)" + e.args[0] + ")";
}

}  // namespace

void register_math_ops(OpTable& t) {
  for (const char* op : {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "sigmoid",
                         "silu", "gelu", "pow"})
    t.elementwise[op] = math;
  t.helpers.push_back(kMathHelpersC);
}

}  // namespace oi::c_emitter
