// GLSL for one fused elementwise chain. Values get bindings in the order the kernel first touches
// them; every value the kernel computes is a `precise` local (no contraction of a*b+c into an fma,
// as ops.md's bit-exact elementwise rule needs), loaded once and stored once per element.
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
          " is not supported here (f32, f64, i32 and u32 are; f16, bf16, f8 and bool in "
          "elementwise chains)");
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

class KernelWriter {
 public:
  KernelWriter(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel)
      : plan_(plan), kernel_(kernel), sb_(plan, device, kernel) {
    out_elements_ = product(kernel.shape);
  }

  KernelShader write() {
    const OpIn& head = kernel_.ops.front();
    // Only fused elementwise chains: a kernel headed by any other op (a single op, matmul, a
    // reduction) runs the Vulkan backend's shader for it (output_writer.cpp's write_kernel; an
    // elementwise epilogue comes back here as a chain of its own).
    if (kernel_.kind != "elementwise")
      decline(op_where(head) + ": the emitter has no writer of its own for a kernel of kind '" +
              kernel_.kind + "'");
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

  void emit_ops(const std::string& index_var) {
    for (const OpIn& op : kernel_.ops) {
      if (!is_elementwise_op(op.op))
        decline(op_where(op) + " cannot be fused into an elementwise chain in GLSL");
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

  KernelShader finish_grid(const std::string& kind) {
    return sb_.grid(kind, out_elements_, body_.str());
  }

  KernelShader write_elementwise() {
    emit_ops("i");
    emit_stores("i");
    return finish_grid("elementwise");
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
