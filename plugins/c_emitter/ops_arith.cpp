// Elementwise arithmetic of ops.md in generated C: add, sub, mul, div (floats, with
// div_by_zero_mask), neg, abs, min, max, relu (floats), fill and cast, on f32, f64 and i32.
// Integer arithmetic wraps through uint32_t (no undefined behaviour).
#include <set>

#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

// ops.md's min/max (NaN first operand wins, then the second; -0.0 below +0.0) and relu (a zero
// result is +0.0, then the clamp), written as the CPU backend computes them.
const char* const kArithHelpersC =
    R"C(#define OI_MINMAX(T, S)                                          \
  static inline OI_HELPER T oi_min_##S(T a, T b) {                          \
    if (isnan(a)) return a;                                       \
    if (isnan(b)) return b;                                       \
    if (a == b) return signbit(a) ? a : b;                        \
    return a < b ? a : b;                                         \
  }                                                               \
  static inline OI_HELPER T oi_max_##S(T a, T b) {                          \
    if (isnan(a)) return a;                                       \
    if (isnan(b)) return b;                                       \
    if (a == b) return signbit(a) ? b : a;                        \
    return a > b ? a : b;                                         \
  }                                                               \
  static inline OI_HELPER T oi_relu_##S(T a, T alpha, T lo, T hi) {         \
    T y = a >= 0 ? a : alpha * a;                                 \
    if (y == 0) y = 0;                                            \
    if (y < lo) y = lo;                                           \
    if (y > hi) y = hi;                                           \
    return y;                                                     \
  }
OI_MINMAX(float, f)
OI_MINMAX(double, d)
static inline OI_HELPER int32_t oi_min_i(int32_t a, int32_t b) { return b < a ? b : a; }
/* An already rounded float to i32, saturating; NaN gives 0 (ops.md cast). */
static inline OI_HELPER int32_t oi_to_i32_d(double r) {
  if (isnan(r)) return 0;
  if (r >= 2147483647.0) return INT32_MAX;
  if (r <= -2147483648.0) return INT32_MIN;
  return (int32_t)r;
}
static inline OI_HELPER int32_t oi_to_i32_f(float r) { return oi_to_i32_d((double)r); }
static inline OI_HELPER int32_t oi_max_i(int32_t a, int32_t b) { return b > a ? b : a; }

)C";

// ops.md's cast between f32, f64 and i32: float -> float and int -> float round to nearest
// (C's conversions); float -> i32 rounds with rounding_mode, then saturates (NaN -> 0).
std::string cast_expr(const std::string& x, const std::string& from, const std::string& to,
                      const json::object& settings, const std::string& where) {
  const std::string T = c_type(to);
  if (from == to) return x;
  if (to != "i32") return "(" + T + ")" + x;
  if (from == "i32") return x;
  if (settings.contains("saturate") && !settings.at("saturate").as_bool())
    throw CUnsupported("c emitter: " + where + " with saturate=false is not supported yet");
  const std::string mode =
      settings.contains("rounding_mode") ? str(settings.at("rounding_mode")) : "trunc";
  const std::string f = from == "f32" ? "f" : "";
  const std::string r = mode == "trunc"          ? "trunc" + f + "(" + x + ")"
                        : mode == "floor"        ? "floor" + f + "(" + x + ")"
                        : mode == "ceil"         ? "ceil" + f + "(" + x + ")"
                        : mode == "nearest_even" ? "nearbyint" + f + "(" + x + ")"
                                                 : "";
  if (r.empty()) throw CUnsupported("c emitter: " + where + ": rounding_mode " + mode);
  return "oi_to_i32_" + std::string(from == "f32" ? "f" : "d") + "(" + r + ")";
}

std::string arith(const ElementwiseCall& e) {
  const std::string &op = e.op, &dtype = e.dtype, &where = e.where;
  const auto& a = e.args;
  const auto& settings = e.settings;
  const bool flt = dtype != "i32";
  if (dtype != "f32" && dtype != "f64" && dtype != "i32")
    throw CUnsupported("c emitter: " + where + " on " + dtype + " is not supported yet");
  const std::set<std::string> allowed =
      op == "div"    ? std::set<std::string>{"div_by_zero_mask"}
      : op == "fill" ? std::set<std::string>{"value"}
      : op == "cast" ? std::set<std::string>{"to", "rounding_mode", "saturate"}
      : op == "relu" ? std::set<std::string>{"alpha", "negative_slope", "clamp_min", "clamp_max"}
                     : std::set<std::string>{};
  for (const auto& kv : settings)
    if (!allowed.count(std::string(kv.key())))
      throw CUnsupported("c emitter: " + where + ": setting '" + std::string(kv.key()) +
                         "' is not supported yet");
  auto setting = [&](const char* key, const char* fallback) {
    return settings.contains(key) ? literal(settings.at(key), dtype, key)
                                  : std::string("(") + c_type(dtype) + ")" + fallback;
  };
  auto wrap = [&](const char* sym) {
    return "(int32_t)((uint32_t)" + a[0] + " " + sym + " (uint32_t)" + a[1] + ")";
  };
  if (op == "add") return flt ? "(" + a[0] + " + " + a[1] + ")" : wrap("+");
  if (op == "sub") return flt ? "(" + a[0] + " - " + a[1] + ")" : wrap("-");
  if (op == "mul") return flt ? "(" + a[0] + " * " + a[1] + ")" : wrap("*");
  if (op == "neg") return flt ? "(-" + a[0] + ")" : "(int32_t)(0u - (uint32_t)" + a[0] + ")";
  const std::string sfx = dtype == "f32" ? "f" : dtype == "f64" ? "d" : "i";
  if (op == "abs")
    return flt ? (dtype == "f32" ? "fabsf(" : "fabs(") + a[0] + ")"
               : "(" + a[0] + " < 0 ? (int32_t)(0u - (uint32_t)" + a[0] + ") : " + a[0] + ")";
  if (op == "min" || op == "max") return "oi_" + op + "_" + sfx + "(" + a[0] + ", " + a[1] + ")";
  if (op == "relu" && flt) {
    const std::string alpha =
        settings.contains("alpha") ? setting("alpha", "0") : setting("negative_slope", "0");
    return "oi_relu_" + sfx + "(" + a[0] + ", " + alpha + ", " + setting("clamp_min", "-INFINITY") +
           ", " + setting("clamp_max", "INFINITY") + ")";
  }
  if (op == "fill")
    return settings.contains("value") ? literal(settings.at("value"), dtype, "fill value")
                                      : std::string("(") + c_type(dtype) + ")0";
  if (op == "cast") return cast_expr(a[0], e.from_dtype, dtype, settings, where);
  if (op == "div" && flt) {
    if (settings.contains("div_by_zero_mask"))
      return "(" + a[1] + " == 0 ? " +
             literal(settings.at("div_by_zero_mask"), dtype, "div_by_zero_mask") + " : " + a[0] +
             " / " + a[1] + ")";
    return "(" + a[0] + " / " + a[1] + ")";
  }
  throw CUnsupported("c emitter: " + where + " on " + dtype + " is not supported yet");
}

}  // namespace

void register_arith_ops(OpTable& t) {
  for (const char* op :
       {"add", "sub", "mul", "div", "neg", "abs", "min", "max", "relu", "fill", "cast"})
    t.elementwise[op] = arith;
  t.helpers.push_back(kArithHelpersC);
}

}  // namespace oi::c_emitter
