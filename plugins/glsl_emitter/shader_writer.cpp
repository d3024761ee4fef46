// GLSL for one kernel. Values get bindings in the order the kernel first touches them; every
// value the kernel computes is a `precise` local (no contraction of a*b+c into an fma, as
// ops.md's bit-exact elementwise rule needs), loaded once and stored once per element.
#include "shader_writer.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "ops.hpp"
#include "shader_common.hpp"

namespace oi::glsl {

namespace json = boost::json;

std::string glsl_type(const std::string& dtype, const std::string& where) {
  if (dtype == "f32") return "float";
  if (dtype == "f64") return "double";
  if (dtype == "i32") return "int";
  if (dtype == "u32") return "uint";
  decline(where + ": dtype " + dtype +
          " is not supported here (f32, f64, i32 and u32 are; f16 and bool in elementwise "
          "kernels and movement, i64 and u64 in movement, gather indices and argmax results)");
}

namespace {

bool is_comparison(const std::string& op) {
  return op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge";
}

bool is_logical(const std::string& op) {
  return op == "and" || op == "or" || op == "xor" || op == "not";
}

bool is_float_test(const std::string& op) {
  return op == "is_nan" || op == "is_inf" || op == "is_neg";
}

bool is_elementwise_op(const std::string& op) {
  static const std::set<std::string> ops = {"add", "sub", "mul",   "div",  "neg",  "abs",
                                            "min", "max", "clamp", "relu", "fill", "cast"};
  return ops.count(op) > 0 || is_comparison(op) || is_logical(op) || is_float_test(op) ||
         op_registry().math.count(op) > 0;
}

// ops.md's is_nan, is_inf (either sign) and is_neg (x < 0: false for -0.0 and NaN), on the
// bits, so no driver's fast-math assumption decides them.
const char* const kFloatTestHelpers =
    R"(bool oi_is_nan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool oi_is_inf(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }
bool oi_is_neg(float x) {
  const uint b = floatBitsToUint(x), a = b & 0x7fffffffu;
  return b != a && a != 0u && a <= 0x7f800000u;
}
#ifdef OI_HAS_DOUBLE
bool oi_is_nan(double x) {
  const uvec2 w = unpackDouble2x32(x);
  const uint h = w.y & 0x7fffffffu;
  return h > 0x7ff00000u || (h == 0x7ff00000u && w.x != 0u);
}
bool oi_is_inf(double x) {
  const uvec2 w = unpackDouble2x32(x);
  return (w.y & 0x7fffffffu) == 0x7ff00000u && w.x == 0u;
}
bool oi_is_neg(double x) {
  const uvec2 w = unpackDouble2x32(x);
  return (w.y & 0x80000000u) != 0u && ((w.y & 0x7fffffffu) | w.x) != 0u && !oi_is_nan(x);
}
#endif
)";

// Saturating float -> integer conversions of an already rounded value (NaN by its bits, so
// no compiler assumes it away).
const char* const kCastHelpers =
    R"(bool oi_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
int oi_to_i32(float r) {
  return oi_isnan(r) ? 0 : r >= 2147483648.0 ? 0x7fffffff : r < -2147483648.0 ? int(0x80000000u) : int(r);
}
uint oi_to_u32(float r) { return oi_isnan(r) || r <= 0.0 ? 0u : r >= 4294967296.0 ? 0xffffffffu : uint(r); }
#ifdef OI_HAS_DOUBLE
bool oi_isnan(double x) {
  const uvec2 w = unpackDouble2x32(x);
  const uint h = w.y & 0x7fffffffu;
  return h > 0x7ff00000u || (h == 0x7ff00000u && w.x != 0u);
}
int oi_to_i32(double r) {
  return oi_isnan(r) ? 0 : r >= 2147483648.0LF ? 0x7fffffff : r < -2147483648.0LF ? int(0x80000000u) : int(r);
}
uint oi_to_u32(double r) { return oi_isnan(r) || r <= 0.0LF ? 0u : r >= 4294967296.0LF ? 0xffffffffu : uint(r); }
#endif
)";

bool is_reduction_op(const std::string& op) {
  return op == "sum_axis" || op == "prod_axis" || op == "mean_axis" || op == "max_axis" ||
         op == "min_axis";
}

class KernelWriter {
 public:
  KernelWriter(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel)
      : plan_(plan), kernel_(kernel), sb_(plan, device, kernel) {
    out_elements_ = product(kernel.shape);
  }

  KernelShader write() {
    const OpIn& head = kernel_.ops.front();
    if (head.op == "matmul") return write_matmul();
    if (is_reduction_op(head.op)) return write_reduction();
    if (kernel_.kind == "op")  // single ops: the Vulkan backend's shaders (vulkan_kernels.hpp)
      decline(op_where(head) + ": the emitter has no writer of its own for single ops");
    if (!is_elementwise_op(head.op))
      decline(op_where(head) + " cannot be expressed in GLSL yet (supported: " + supported_ops() +
              ")");
    return write_elementwise();
  }

 private:
  std::string buffer(const std::string& name) { return sb_.buffer(name); }
  std::string type_of(const std::string& name) { return sb_.type_of(name); }
  std::string ctype(const std::string& name) { return sb_.compute_type(name); }
  void check_settings(const OpIn& op, std::set<std::string> allowed) {
    sb_.check_settings(op, allowed);
  }
  const json::value* setting(const OpIn& op, const char* name) { return sb_.setting(op, name); }

  // The local holding `name`'s current element, loading it from memory on first use.
  std::string local(const std::string& name, const std::string& index_var) {
    auto it = locals_.find(name);
    if (it != locals_.end()) return it->second;
    const ValueIn& v = plan_.value(name);
    const std::string loc = "v" + std::to_string(next_local_++);
    const std::string t = ctype(name);
    if (v.storage == "internal")
      decline("value '" + name + "' is internal to kernel " + std::to_string(kernel_.id) +
              " but read before the kernel computes it");
    if (is_narrow_float(v.dtype)) sb_.use_narrow_helpers();
    body_ << "    " << (is_float_type(t) ? "precise " : "") << t << " " << loc << " = "
          << sb_.load(name, broadcast_index(v.shape, kernel_.shape, index_var)) << ";  // " << name
          << "\n";
    locals_[name] = loc;
    return loc;
  }

  std::string assign_local(const std::string& name, const std::string& expr) {
    const std::string t = ctype(name);
    const std::string loc = "v" + std::to_string(next_local_++);
    const std::string& dtype = plan_.value(name).dtype;
    const bool narrow = is_narrow_float(dtype);  // the f32 result, rounded once to the dtype
    if (narrow) sb_.use_narrow_helpers();
    body_ << "    " << (is_float_type(t) ? "precise " : "") << t << " " << loc << " = "
          << (narrow ? "oi_round_" + dtype + "(" + expr + ")" : expr) << ";  // " << name << "\n";
    result_in(name, loc);
    return loc;
  }

  // A head's f32 result `acc` rounded to a narrow output dtype (f16, bf16, f8) before the
  // epilogue reads it, as every op output is rounded; other dtypes as they are.
  std::string rounded_result(const std::string& name, const std::string& acc) {
    const std::string& dtype = plan_.value(name).dtype;
    if (!is_narrow_float(dtype)) return acc;
    body_ << "  precise float " << acc << "_r = oi_round_" << dtype << "(" << acc << ");\n";
    return acc + "_r";
  }

  // The local holding value `name` (a plain value or a table entry's reference).
  void result_in(const std::string& name, const std::string& loc) {
    locals_[name] = loc;
    locals_[parse_ref(name).name] = loc;      // a table entry is stored under the table's name
    stored_as_[parse_ref(name).name] = name;  // ... into the entry's binding
  }

  // ops.md's cast between f32, f64, i32 and u32: float -> float and int -> float round to
  // nearest even (GLSL's conversions); float -> int rounds by `rounding_mode`, then saturates
  // (NaN gives 0); int -> int saturates. saturate=false is refused.
  std::string cast_expr(const OpIn& op, const std::string& x, const std::string& from,
                        const std::string& to) {
    check_settings(op, {"to", "rounding_mode", "saturate"});
    if (const json::value* sat = setting(op, "saturate");
        sat && !(sat->is_bool() && sat->as_bool()))
      decline(op_where(op) + ": saturate=false is not supported");
    if (from == "bool" || to == "bool")
      decline(op_where(op) + ": casts from or to bool are not supported");
    if (from == to) return x;
    if (is_float_type(to)) return to + "(" + x + ")";
    if (!is_float_type(from)) {  // i32 <-> u32, saturating
      return to == "uint" ? "(" + x + " < 0 ? 0u : uint(" + x + "))"
                          : "(" + x + " > 0x7fffffffu ? 0x7fffffff : int(" + x + "))";
    }
    const json::value* m = setting(op, "rounding_mode");
    const std::string mode = m && m->is_string() ? std::string(m->as_string()) : "trunc";
    const std::string fn = mode == "trunc"          ? "trunc"
                           : mode == "floor"        ? "floor"
                           : mode == "ceil"         ? "ceil"
                           : mode == "nearest_even" ? "roundEven"
                                                    : "";
    if (fn.empty()) decline(op_where(op) + ": rounding_mode '" + mode + "'");
    sb_.add_helper("cast", kCastHelpers);
    return std::string(to == "int" ? "oi_to_i32(" : "oi_to_u32(") + fn + "(" + x + "))";
  }

  // One elementwise op over the locals; returns the expression of its result.
  std::string op_expr(const OpIn& op, const std::string& index_var) {
    const std::string out_t = ctype(op.output);
    const ValueIn& out = plan_.value(op.output);
    if (out.shape != kernel_.shape)
      decline(op_where(op) + ": output '" + op.output + "' does not have the kernel's shape");
    std::vector<std::string> a;
    if (op.op == "cast") {
      if (op.inputs.size() != 1) invalid_plan(op_where(op) + ": cast takes one input");
      const std::string& from = plan_.value(op.inputs[0]).dtype;
      const std::string x = local(op.inputs[0], index_var);
      if (is_narrow_float(out.dtype) && (from == "f64" || from == "i32" || from == "u32")) {
        // Exactly to f64, to f32 rounding to odd; assign_local's rounding is then the one.
        check_settings(op, {"to", "rounding_mode", "saturate"});
        sb_.need_f64("cast " + from + " -> " + out.dtype + " (" + op_where(op) + ")");
        return "oi_odd_f32(double(" + x + "))";
      }
      return cast_expr(op, x, ctype(op.inputs[0]), out_t);
    }
    if (is_comparison(op.op)) return comparison(op, index_var);
    if (is_float_test(op.op)) return float_test(op, index_var);
    for (const std::string& in : op.inputs) {
      if (plan_.value(in).dtype != out.dtype)
        decline(op_where(op) + ": mixed dtypes (" + plan_.value(in).dtype + " input, " + out.dtype +
                " output) are not supported");
      a.push_back(local(in, index_var));
    }
    if (is_logical(op.op)) return logical(op, a, out_t);
    if (out_t == "bool")
      decline(op_where(op) + " on bool is not supported (comparisons and and/or/xor/not are)");
    const bool f = is_float_type(out_t), d = out_t == "double";
    const std::string& o = op.op;
    auto need = [&](size_t n) {
      if (a.size() != n) invalid_plan(op_where(op) + ": expected " + std::to_string(n) + " inputs");
    };
    if (o == "add" || o == "sub" || o == "mul") {
      check_settings(op, {});
      need(2);
      if (out_t == "float")  // exact where the device flushes subnormals (exact_f32.glsl)
        return "oi_" + o + "(" + a[0] + ", " + a[1] + ")";
      return a[0] + (o == "add" ? " + " : o == "sub" ? " - " : " * ") + a[1];
    }
    if (o == "div") {
      check_settings(op, {"div_by_zero_mask"});
      need(2);
      const json::value* m = setting(op, "div_by_zero_mask");
      if (d) {  // f64 division is GLSL's (IEEE where the device divides doubles exactly)
        const std::string q = "(" + a[0] + " / " + a[1] + ")";
        if (!m) return q;
        return "(" + a[1] + " == 0.0LF ? " + literal(*m, out_t, op_where(op)) + " : " + q + ")";
      }
      if (f) {
        const std::string q = "oi_div(" + a[0] + ", " + a[1] + ")";
        if (!m) return q;
        return "((floatBitsToUint(" + a[1] + ") & 0x7fffffffu) == 0u ? " +
               literal(*m, out_t, op_where(op)) + " : " + q + ")";
      }
      const std::string zero = m ? literal(*m, out_t, op_where(op)) : out_t + "(0)";
      if (out_t == "uint")
        return "(" + a[1] + " == 0u ? " + zero + " : " + a[0] + " / " + a[1] + ")";
      return "(" + a[1] + " == 0 ? " + zero + " : ((" + a[0] + " == int(0x80000000u) && " + a[1] +
             " == -1) ? " + a[0] + " : " + a[0] + " / " + a[1] + "))";
    }
    if (o == "neg" || o == "abs") {
      check_settings(op, {});
      need(1);
      if (d)  // the sign bit of the high word
        return "packDouble2x32(unpackDouble2x32(" + a[0] + ") " +
               (o == "neg" ? "^ uvec2(0u, 0x80000000u))" : "& uvec2(0xffffffffu, 0x7fffffffu))");
      if (f)
        return "uintBitsToFloat(floatBitsToUint(" + a[0] + ") " +
               (o == "neg" ? "^ 0x80000000u)" : "& 0x7fffffffu)");
      if (out_t == "uint") return o == "neg" ? "(0u - " + a[0] + ")" : a[0];
      return o == "neg" ? "(-" + a[0] + ")" : "(" + a[0] + " < 0 ? -" + a[0] + " : " + a[0] + ")";
    }
    if (o == "min" || o == "max") {
      check_settings(op, {});
      need(2);
      return (f ? "oi_" : "") + o + "(" + a[0] + ", " + a[1] + ")";
    }
    if (o == "fill") {
      check_settings(op, {"value"});
      const json::value* v = setting(op, "value");
      if (!v) invalid_plan(op_where(op) + ": fill needs 'value'");
      return literal(*v, out_t, op_where(op));
    }
    if (o == "clamp" || o == "relu") {
      const bool relu = o == "relu";
      check_settings(
          op, relu ? std::set<std::string>{"alpha", "negative_slope", "clamp_min", "clamp_max"}
                   : std::set<std::string>{"min", "max"});
      need(1);
      std::string r = a[0];
      if (relu) {
        const json::value* alpha = setting(op, "alpha");
        if (!alpha) alpha = setting(op, "negative_slope");
        const bool zero_alpha =
            !alpha || literal(*alpha, "double", op_where(op)) == literal(0.0, "double", "");
        if (f && zero_alpha) {
          // 0 * x without a multiplication the compiler could fold to 0: NaN for infinite or
          // NaN x (as the CPU backend computes it), else a zero.
          const std::string special =
              d ? "(unpackDouble2x32(" + a[0] + ").y & 0x7fffffffu) >= 0x7ff00000u"
                : "(floatBitsToUint(" + a[0] + ") & 0x7fffffffu) >= 0x7f800000u";
          r = "(" + ge_zero(a[0], d) + " ? " + a[0] + " : (" + special + ") ? " + out_t +
              "(uintBitsToFloat(0x7fc00000u)) : " + out_t + "(0))";
        } else if (f) {
          const std::string l = literal(*alpha, out_t, op_where(op));
          r = "(" + ge_zero(a[0], d) + " ? " + a[0] + " : " +
              (d ? l + " * " + a[0] : "oi_mul(" + l + ", " + a[0] + ")") + ")";
        } else {
          if (alpha && literal(*alpha, "float", op_where(op)) != "uintBitsToFloat(0x0u)")
            decline(op_where(op) + ": a nonzero alpha on integers is not supported");
          r = "max(" + a[0] + ", " + out_t + "(0))";
        }
      }
      const json::value* lo = setting(op, relu ? "clamp_min" : "min");
      const json::value* hi = setting(op, relu ? "clamp_max" : "max");
      if (relu && f) {
        // As the CPU backend: a zero result becomes +0.0 first, then plain comparisons clamp
        // (NaN stays NaN; a bound equal to the value up to its zero sign leaves the value).
        const std::string t = "r" + std::to_string(relu_count_++);
        // f32 compared on the bits (exact_f32.glsl): a subnormal is not a zero.
        auto cmp = [&](const std::string& x, const char* sym, const char* fn,
                       const std::string& y) {
          return d ? x + " " + sym + " " + y : std::string(fn) + "(" + x + ", " + y + ")";
        };
        body_ << "    precise " << out_t << " " << t << " = " << r << ";\n    " << t << " = "
              << cmp(t, "==", "oi_eq", "0.0") << " ? 0.0 : " << t << ";\n";
        if (lo) {
          const std::string l = literal(*lo, out_t, op_where(op));
          body_ << "    " << t << " = " << cmp(t, "<", "oi_lt", l) << " ? " << l << " : " << t
                << ";\n";
        }
        if (hi) {
          const std::string h = literal(*hi, out_t, op_where(op));
          body_ << "    " << t << " = " << cmp(t, ">", "oi_gt", h) << " ? " << h << " : " << t
                << ";\n";
        }
        return t;
      }
      if (lo && !(is_infinite_setting(*lo) && !f))
        r = std::string(f ? "oi_max(" : "max(") + r + ", " + literal(*lo, out_t, op_where(op)) +
            ")";
      if (hi && !(is_infinite_setting(*hi) && !f))
        r = std::string(f ? "oi_min(" : "min(") + r + ", " + literal(*hi, out_t, op_where(op)) +
            ")";
      return r;
    }
    const auto& math = op_registry().math;
    if (auto it = math.find(o); it != math.end()) return it->second(sb_, op, a);
    decline(op_where(op) + " cannot be expressed in GLSL yet (supported: " + supported_ops() + ")");
  }

  // x >= 0 for a relu: on the sign bit for f32 (a subnormal is not a zero; NaN is false).
  static std::string ge_zero(const std::string& x, bool d) {
    if (d) return x + " >= 0.0";
    return "oi_ge(" + x + ", 0.0)";
  }

  // eq ne lt le gt ge: bool from two values of one dtype; with NaN only `ne` holds (GLSL's
  // comparisons, IEEE where the device keeps NaN: the _ieee shaders).
  std::string comparison(const OpIn& op, const std::string& index_var) {
    check_settings(op, {});
    if (op.inputs.size() != 2) invalid_plan(op_where(op) + ": a comparison takes two inputs");
    const ValueIn& x = plan_.value(op.inputs[0]);
    const ValueIn& y = plan_.value(op.inputs[1]);
    if (x.dtype != y.dtype)
      decline(op_where(op) + ": mixed dtypes (" + x.dtype + ", " + y.dtype + ")");
    if (plan_.value(op.output).dtype != "bool")
      invalid_plan(op_where(op) + ": the output must be bool");
    const std::string a = local(op.inputs[0], index_var), b = local(op.inputs[1], index_var);
    const std::string& o = op.op;
    const std::string sym = o == "eq"   ? "=="
                            : o == "ne" ? "!="
                            : o == "lt" ? "<"
                            : o == "le" ? "<="
                            : o == "gt" ? ">"
                                        : ">=";
    if (sb_.compute_type(op.inputs[0]) == "float")  // on the bits (exact_f32.glsl)
      return "oi_" + o + "(" + a + ", " + b + ")";
    return "(" + a + " " + sym + " " + b + ")";
  }

  // is_nan is_inf is_neg: bool from one value; integers are never NaN or infinite.
  std::string float_test(const OpIn& op, const std::string& index_var) {
    check_settings(op, {});
    if (op.inputs.size() != 1) invalid_plan(op_where(op) + ": expected one input");
    if (plan_.value(op.output).dtype != "bool")
      invalid_plan(op_where(op) + ": the output must be bool");
    const std::string t = sb_.compute_type(op.inputs[0]);
    const std::string a = local(op.inputs[0], index_var);
    if (t == "float" || t == "double") {
      sb_.add_helper("float_tests", kFloatTestHelpers);
      return "oi_" + op.op + "(" + a + ")";
    }
    if (t != "int" && t != "uint")
      decline(op_where(op) + " on " + plan_.value(op.inputs[0]).dtype +
              " is not supported (f32, f64, f16/bf16/f8, i32 and u32 are)");
    if (op.op == "is_neg" && t == "int") return "(" + a + " < 0)";
    return "false";
  }

  // and or xor not: logical on bool, bitwise on i32/u32.
  std::string logical(const OpIn& op, const std::vector<std::string>& a, const std::string& t) {
    check_settings(op, {});
    const bool unary = op.op == "not";
    if (a.size() != (unary ? 1u : 2u))
      invalid_plan(op_where(op) + ": expected " + std::string(unary ? "one input" : "two inputs"));
    const bool b = t == "bool";
    if (!b && t != "int" && t != "uint")
      decline(op_where(op) + " on " + plan_.value(op.output).dtype +
              " is not supported (bool, i32 and u32 are)");
    if (unary) return b ? "(!" + a[0] + ")" : "(~" + a[0] + ")";
    const std::string sym = op.op == "and"  ? (b ? "&&" : "&")
                            : op.op == "or" ? (b ? "||" : "|")
                                            : (b ? "!=" : "^");
    return "(" + a[0] + " " + sym + " " + a[1] + ")";
  }

  void emit_ops(size_t first, const std::string& index_var) {
    for (size_t i = first; i < kernel_.ops.size(); ++i) {
      const OpIn& op = kernel_.ops[i];
      if (!is_elementwise_op(op.op))
        decline(op_where(op) + " cannot be fused as an elementwise epilogue in GLSL");
      const std::string expr = op_expr(op, index_var);
      assign_local(op.output, expr);
    }
  }

  void emit_stores(const std::string& index_var) {
    for (const std::string& w : kernel_.writes) {
      auto it = locals_.find(w);
      if (it == locals_.end())
        invalid_plan("kernel " + std::to_string(kernel_.id) + " lists '" + w +
                     "' in writes but no op of it writes it");
      if (plan_.value(w).shape != kernel_.shape)
        decline("kernel " + std::to_string(kernel_.id) + " writes '" + w +
                "' with a shape other than the kernel's");
      auto entry = stored_as_.find(w);
      body_ << "    "
            << sb_.store(entry == stored_as_.end() ? w : entry->second, index_var, it->second)
            << "\n";
    }
  }

  std::string header(const std::string& kind) { return sb_.header(kind); }
  std::string declarations() { return sb_.declarations(); }
  void check_count(uint64_t n, const char* what) { sb_.check_count(n, what); }
  KernelShader finish_grid(const std::string& kind) {
    return sb_.grid(kind, out_elements_, body_.str());
  }

  KernelShader write_elementwise() {
    emit_ops(0, "i");
    emit_stores("i");
    return finish_grid("elementwise");
  }

  KernelShader write_matmul() {
    const OpIn& mm = kernel_.ops.front();
    check_settings(mm, {});
    if (mm.inputs.size() != 2) invalid_plan(op_where(mm) + ": matmul takes two inputs");
    const ValueIn& a = plan_.value(mm.inputs[0]);
    const ValueIn& b = plan_.value(mm.inputs[1]);
    const ValueIn& c = plan_.value(mm.output);
    // f16, bf16 and f8 widen exactly to f32, accumulate in f32 and round once (ops.md).
    const std::string t = ctype(mm.output);
    if (a.dtype != c.dtype || b.dtype != c.dtype)
      decline(op_where(mm) + ": mixed dtypes are not supported");
    if (t == "bool") decline(op_where(mm) + " on bool is not supported");
    if (a.shape.size() < 2 || b.shape.size() < 2 || c.shape.size() < 2 || c.shape != kernel_.shape)
      invalid_plan(op_where(mm) + ": matmul operands must have rank 2 or more");
    const uint64_t M = a.shape[a.shape.size() - 2], K = a.shape.back(), N = b.shape.back();
    if (b.shape[b.shape.size() - 2] != K || c.shape[c.shape.size() - 2] != M || c.shape.back() != N)
      invalid_plan(op_where(mm) + ": matmul shapes do not agree");
    const std::vector<uint64_t> cb(c.shape.begin(), c.shape.end() - 2);
    const std::vector<uint64_t> ab(a.shape.begin(), a.shape.end() - 2);
    const std::vector<uint64_t> bb(b.shape.begin(), b.shape.end() - 2);
    const uint64_t batches = product(cb);
    check_count(std::max({product(a.shape), product(b.shape), product(c.shape)}), "element count");
    // The tile edge: the largest of 16, 8, 4, 2, 1 whose TS x TS workgroup and two TS x TS
    // tiles fit the device's limits.
    const uint64_t esize = t == "double" ? 8 : 4;
    uint32_t ts = 16;
    while (ts > 1 &&
           (ts * ts > sb_.device.wg_invocations || ts > sb_.device.wg_size[0] ||
            ts > sb_.device.wg_size[1] || 2ull * ts * ts * esize > sb_.device.shared_bytes))
      ts /= 2;
    if (2ull * ts * ts * esize > sb_.device.shared_bytes)
      decline(op_where(mm) + ": the device has no shared memory for matmul tiles");
    const uint64_t gx = (N + ts - 1) / ts, gy = (M + ts - 1) / ts;
    if (gx > kMaxGroups || gy > kMaxGroups || batches > kMaxGroups)
      decline(op_where(mm) + ": more than 65535 workgroups along one axis");
    buffer(a.name), buffer(b.name);  // their bindings
    if (is_narrow_float(c.dtype)) sb_.use_narrow_helpers();
    std::ostringstream pre;
    pre << "shared " << t << " tile_a[" << ts << "][" << ts << "];\nshared " << t << " tile_b["
        << ts << "][" << ts << "];\n";
    // f32 (and the narrow floats in it): once a tile holds a subnormal, the workgroup's products
    // and sums are exact_f32.glsl's, so a device that flushes it neither drops it nor makes
    // NaN of it times inf.
    const bool f32 = t == "float";
    if (f32) pre << "shared uint tile_sub;\n";
    std::ostringstream m;
    m << "void main() {\n  const uint TS = " << u(ts) << ", M = " << u(M) << ", N = " << u(N)
      << ", K = " << u(K) << ";\n"
      << "  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;\n"
      << "  const uint col = gl_WorkGroupID.x * TS + lx, row = gl_WorkGroupID.y * TS + ly;\n"
      << "  const uint batch = gl_WorkGroupID.z;\n"
      << "  const uint a_off = " << broadcast_index(ab, cb, "batch") << " * (M * K);\n"
      << "  const uint b_off = " << broadcast_index(bb, cb, "batch") << " * (K * N);\n"
      << "  " << t << " acc = " << t << "(0);\n";
    if (f32) m << "  if (lx == 0u && ly == 0u) tile_sub = 0u;\n  barrier();\n";
    m << "  for (uint k0 = 0u; k0 < K; k0 += TS) {\n"
      << "    tile_a[ly][lx] = (row < M && k0 + lx < K) ? "
      << sb_.load(a.name, "a_off + row * K + k0 + lx") << " : " << t << "(0);\n"
      << "    tile_b[ly][lx] = (k0 + ly < K && col < N) ? "
      << sb_.load(b.name, "b_off + (k0 + ly) * N + col") << " : " << t << "(0);\n";
    if (f32)
      m << "    if (oi_subnormal(floatBitsToUint(tile_a[ly][lx])) || "
           "oi_subnormal(floatBitsToUint(tile_b[ly][lx]))) atomicOr(tile_sub, 1u);\n";
    m << "    barrier();\n"
      << "    const uint kn = min(TS, K - k0);  // never into the padding\n";
    if (f32)
      m << "    if (tile_sub != 0u)\n"
        << "      for (uint k = 0u; k < kn; ++k) acc = oi_add(acc, oi_mul(tile_a[ly][k], "
           "tile_b[k][lx]));\n    else\n  ";
    m << "    for (uint k = 0u; k < kn; ++k) acc += tile_a[ly][k] * tile_b[k][lx];\n"
      << "    barrier();\n  }\n"
      << "  if (row >= M || col >= N) return;\n"
      << "  const uint i = batch * (M * N) + row * N + col;\n";
    result_in(mm.output, rounded_result(mm.output, "acc"));
    emit_ops(1, "i");
    emit_stores("i");
    KernelShader ks;
    ks.glsl = header("matmul") + "layout(local_size_x = " + std::to_string(ts) +
              ", local_size_y = " + std::to_string(ts) + ") in;\n" + declarations() + pre.str() +
              m.str() + body_.str() + "}\n";
    ks.local_size = {ts, ts, 1};
    ks.workgroups = {gx, gy, batches};
    ks.bindings = sb_.bindings;
    ks.float64 = sb_.uses_float64();
    return ks;
  }

  KernelShader write_reduction() {
    const OpIn& op = kernel_.ops.front();
    check_settings(op, {"axes", "keepdims"});
    if (op.inputs.size() != 1) invalid_plan(op_where(op) + ": a reduction takes one input");
    const ValueIn& in = plan_.value(op.inputs[0]);
    const std::string t = ctype(op.output);  // narrow floats in f32, rounded once at the end
    if (in.dtype != plan_.value(op.output).dtype)
      decline(op_where(op) + ": mixed dtypes are not supported");
    if (t == "bool") decline(op_where(op) + " on bool is not supported");
    // ops.md's integer mean is of the exact sum: the Vulkan backend's reduce.comp has it.
    if (op.op == "mean_axis" && !is_float_type(t))
      decline(op_where(op) + " on integers is not supported");
    if (is_narrow_float(in.dtype)) sb_.use_narrow_helpers();
    const size_t rank = in.shape.size();
    std::vector<bool> reduced(rank, false);
    if (const json::value* axes = setting(op, "axes")) {
      if (!axes->is_array()) invalid_plan(op_where(op) + ": axes must be a list of integers");
      for (const json::value& ax : axes->as_array()) {
        if (!ax.is_int64()) invalid_plan(op_where(op) + ": axes must be a list of integers");
        int64_t x = ax.as_int64();
        if (x < 0) x += static_cast<int64_t>(rank);
        if (x < 0 || x >= static_cast<int64_t>(rank))
          invalid_plan(op_where(op) + ": axis out of range");
        reduced[static_cast<size_t>(x)] = true;
      }
    } else {
      reduced.assign(rank, true);
    }
    std::vector<uint64_t> kept_size, kept_stride, red_size, red_stride;
    for (size_t d = 0; d < rank; ++d) {
      (reduced[d] ? red_size : kept_size).push_back(in.shape[d]);
      (reduced[d] ? red_stride : kept_stride).push_back(product(in.shape, d + 1));
    }
    const uint64_t R = product(red_size);
    check_count(product(in.shape), "element count");
    auto decompose = [](const std::vector<uint64_t>& size, const std::vector<uint64_t>& stride,
                        const std::string& var) {
      std::string e;
      for (size_t j = 0; j < size.size(); ++j) {
        if (size[j] == 1) continue;
        const uint64_t inner = [&] {
          uint64_t p = 1;
          for (size_t q = j + 1; q < size.size(); ++q) p *= size[q];
          return p;
        }();
        e += (e.empty() ? "" : " + ") + std::string("((") + var + " / " + u(inner) + ") % " +
             u(size[j]) + ") * " + u(stride[j]);
      }
      return e.empty() ? std::string("0u") : e;
    };
    const std::string& o = op.op;
    const bool f = is_float_type(t);
    if ((o == "max_axis" || o == "min_axis") && R == 0)
      invalid_plan(op_where(op) + ": max/min over an empty axis");
    buffer(in.name);  // its binding
    body_ << "    const uint base = " << decompose(kept_size, kept_stride, "i") << ";\n";
    const std::string elem = sb_.load(in.name, "base + " + decompose(red_size, red_stride, "r"));
    std::string init = o == "prod_axis" ? t + "(1)" : t + "(0)";
    uint64_t first = 0;
    if (o == "max_axis" || o == "min_axis") {
      body_ << "    " << t << " acc;\n    { const uint r = 0u; acc = " << elem << "; }\n";
      first = 1;
    } else {
      body_ << "    " << t << " acc = " << init << ";\n";
    }
    std::string combine;
    const bool f32 = t == "float";  // exact where the device flushes (exact_f32.glsl)
    if (o == "sum_axis" || o == "mean_axis") combine = f32 ? "oi_add(acc, x)" : "acc + x";
    if (o == "prod_axis") combine = f32 ? "oi_mul(acc, x)" : "acc * x";
    if (o == "max_axis") combine = f ? "oi_max(acc, x)" : "max(acc, x)";
    if (o == "min_axis") combine = f ? "oi_min(acc, x)" : "min(acc, x)";
    if (R > first)  // an empty axis has no loop: glslc -O crashes on one that never runs
      body_ << "    for (uint r = " << u(first) << "; r < " << u(R) << "; ++r) { " << t
            << " x = " << elem << "; acc = " << combine << "; }\n";
    if ((o == "sum_axis" || o == "mean_axis") && f) {
      // A sum that starts at +0.0 is never -0.0; a compiler that folds 0.0 + x into x (no
      // signed-zero guarantee) would give -0.0 for a slice of -0.0: cleared on the bits.
      if (t == "double")
        body_ << "    { const uvec2 w = unpackDouble2x32(acc); if (((w.y & 0x7fffffffu) | w.x) == "
                 "0u) "
                 "acc = packDouble2x32(uvec2(0u)); }\n";
      else
        body_ << "    if ((floatBitsToUint(acc) & 0x7fffffffu) == 0u) acc = uintBitsToFloat(0u);\n";
    }
    if (o == "mean_axis") {
      if (R == 0)
        body_ << "    acc = " << (f ? t + "(uintBitsToFloat(0x7fc00000u))" : t + "(0)") << ";\n";
      else if (f32)  // exactly rounded (div_f32.glsl), not GLSL's a * rcp(b)
        body_ << "    acc = oi_div(acc, float(" << u(R) << "));\n";
      else if (f)
        body_ << "    acc = acc / " << t << "(" << u(R) << ");\n";
      else
        body_ << "    acc = acc / " << t << "(" << R << ");\n";
    }
    result_in(op.output, rounded_result(op.output, "acc"));
    if (plan_.value(op.output).shape != kernel_.shape)
      invalid_plan(op_where(op) + ": the reduction's output does not have the kernel's shape");
    emit_ops(1, "i");
    emit_stores("i");
    return finish_grid("reduction");
  }

  const PlanIn& plan_;
  const KernelIn& kernel_;
  ShaderBuilder sb_;
  uint64_t out_elements_ = 0;
  std::map<std::string, std::string> locals_;
  std::map<std::string, std::string> stored_as_;  // a written value's reference ("K[l, t]")
  std::ostringstream body_;
  int relu_count_ = 0;
  int next_local_ = 0;
};

}  // namespace

KernelShader write_counter_shader(const PlanIn& plan, const DeviceIn& device, uint32_t id,
                                  const std::string& value, int64_t delta,
                                  const std::string& where) {
  const ValueIn& v = plan.value(value);
  if ((v.dtype != "i32" && v.dtype != "u32") || v.elements != 1 || v.storage == "internal")
    invalid_plan(where + " of " + v.dtype + " '" + value +
                 "' is not supported (i32 and u32 scalars in memory are)");
  KernelIn k;
  k.id = id;
  k.kind = "counter";
  k.reads = {value};
  k.writes = {value};
  ShaderBuilder sb(plan, device, k);
  sb.use_raw_bits();  // uint arithmetic wraps as ops.md's integers do
  const auto d = static_cast<uint32_t>(static_cast<uint64_t>(delta));
  return sb.grid(where, 1,
                 "    " + sb.buffer(value) + "[0] = " + sb.buffer(value) + "[0] + " + u(d) + ";\n");
}

KernelShader write_kernel_shader(const PlanIn& plan, const DeviceIn& device,
                                 const KernelIn& kernel) {
  return KernelWriter(plan, device, kernel).write();
}

}  // namespace oi::glsl
