// Kernels of run-time shapes (runtime_kernel.hpp).
#include "runtime_kernel.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "library_calls.hpp"
#include "tables.hpp"

namespace oi::c_emitter {
namespace {

// The output-shape rule of a builtin op (core/src/catalog: op_catalog.json's output_shape, the
// default "broadcast", refine_builtin's reductions and matmul), and whether it broadcasts.
std::string shape_rule(const std::string& op, bool& broadcast) {
  static const std::set<std::string> broadcasting = {
      "add", "mul", "sub", "div", "floor_div", "rem", "fma", "min", "max",    "and",
      "or",  "xor", "eq",  "ne",  "lt",        "le",  "gt",  "ge",  "filter", "pow"};
  static const std::set<std::string> elementwise = {
      "abs",   "relu", "fill", "neg", "sign",     "recip",  "clamp",  "floor",   "ceil", "round",
      "trunc", "not",  "shl",  "shr", "popcount", "is_nan", "is_inf", "is_neg",  "cast", "exp",
      "log",   "sqrt", "sin",  "cos", "tanh",     "erf",    "rsqrt",  "sigmoid", "silu", "gelu"};
  broadcast = broadcasting.count(op) > 0;
  if (broadcast || elementwise.count(op)) return "broadcast";
  if (op == "sum_axis" || op == "mean_axis" || op == "prod_axis" || op == "max_axis" ||
      op == "min_axis")
    return "reduce_axes";
  if (op == "argmax_axis" || op == "argmin_axis") return "argreduce_axis";
  if (op == "matmul") return "matmul";
  if (op == "softmax" || op == "log_softmax" || op == "iota") return "same_as_input0_axis";
  if (op == "is_finite") return "scalar";
  if (op == "layer_norm" || op == "rms_norm") return "norm_trailing";
  if (op == "transpose" || op == "reshape" || op == "concat") return op;
  return "";
}

// An integer setting (absent: `fallback`); a loop index or another kind is a gap.
int64_t literal_int(const json::object& settings, const char* key, int64_t fallback,
                    const std::string& where) {
  const json::value* v = settings.if_contains(key);
  if (!v) return fallback;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  c_gap("op-on-auto-dim", where + ": setting '" + key +
                              "' of an op on a matrix of run-time shape is not a literal "
                              "integer, which is not supported yet");
}

bool flag_setting(const json::object& settings, const char* key) {
  const json::value* v = settings.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

// One operand: where its bytes are (`p`), its dims and rank (C names), and for a matrix the
// buffer to free (`b`).
struct Side {
  std::string text, p, b, d, r, dtype;
  bool matrix = false;
};

}  // namespace

std::string runtime_kernel(const RuntimeKernelEnv& e, const json::object& k) {
  const std::string id = std::to_string(k.at("id").as_int64());
  const auto& ops = k.at("ops").as_array();
  const json::object& op = ops.at(0).as_object();
  const std::string where = op_where(op), name = str(op.at("op"));
  if (ops.size() != 1)
    c_gap("op-on-auto-dim", "kernel " + id + " (" + where +
                                "): several ops fused around a matrix of run-time shape is "
                                "not supported yet");
  const auto& settings = op.at("settings").as_object();
  if (settings.contains("acc"))
    c_gap("op-on-auto-dim",
          where + " with acc= on a matrix of run-time shape is not supported yet");
  bool bcast = false;
  const std::string rule = shape_rule(name, bcast);
  if (rule.empty())
    c_gap("op-on-auto-dim", where +
                                ": an op of this shape rule on a matrix of run-time shape is "
                                "not supported yet");
  if (!e.lib)
    c_gap("library-missing", where +
                                 " on a matrix of run-time shape needs the C kernel library, "
                                 "which is missing beside the plugin");
  auto at_of = [&](const std::string& key, size_t i) {
    std::string at = str(op.at("at"));
    if (key == "inputs_at" && op.contains(key) && i < op.at(key).as_array().size())
      at = str(op.at(key).as_array()[i]);
    else if (key == "output_at" && op.contains(key))
      at = str(op.at(key));
    const size_t slash = at.find_last_of('/');
    return e.freestanding && slash != std::string::npos ? at.substr(slash + 1) : at;
  };
  const std::string I = e.indent;
  const std::string op_at = format_text(at_of("at", 0) + ": ");
  // The operands: inputs, then the output (index n).
  const auto& ins = op.at("inputs").as_array();
  const size_t n = ins.size();
  std::vector<Side> sides(n + 1);
  std::string cleanup;
  for (size_t i = 0; i <= n; ++i) {
    Side& s = sides[i];
    s.text = i < n ? str(ins[i]) : str(op.at("output"));
    const AccessText a = parse_access(s.text);
    const std::string N = i < n ? std::to_string(i) : "t";
    s.d = "d" + N;
    s.r = "r" + N;
    s.matrix = e.autodims.count(a.name) > 0;
    if (s.matrix) {
      const AutoDimDecl& m = e.autodims.at(a.name);
      s.dtype = m.dtype;
      s.b = "b" + N;
      s.p = s.b;
      cleanup += "free(" + s.b + "); ";
    } else {
      // A plain value, or a persistent table's entry copied out into its buffer (the caller).
      const Value& v = e.env.operand(s.text);
      if (v.table || v.ptable || (s.text.find('[') != std::string::npos && v.storage != "tabview"))
        c_gap("op-on-auto-dim", where + ": '" + s.text +
                                    "', an entry of a prefix table, beside a matrix of run-time "
                                    "shape is not supported yet");
      s.dtype = v.dtype;
      s.p = "(unsigned char*)s->v_" + v.name;
    }
    if (packed_bits(s.dtype) || s.dtype == "bitset")
      c_gap("op-on-auto-dim", where + ": '" + s.text + "' of dtype " + s.dtype +
                                  " beside a matrix of run-time shape is not supported yet");
  }
  const Side& out = sides[n];
  const std::string R = "OI_AD_RANK";
  // A side's rank, static: a matrix's declared one, a value's.
  auto rank_of = [&](const Side& s) {
    const AccessText a = parse_access(s.text);
    if (!s.matrix) return e.env.operand(s.text).shape.size();
    const AutoDimDecl& m = e.autodims.at(a.name);  // a table's: its sliced @table slots too
    size_t lead = 0;
    for (size_t k = 0; k < m.table_indices.size(); ++k)
      if (!a.brackets || a.slots.empty() || a.slots[k].range || !a.slots[k].index) ++lead;
    return lead + m.base.size();
  };
  std::ostringstream c;
  c << I << "{ /* kernel " << id << ": " << where << ", shapes known at run time */\n";
  for (const Side& s : sides) {
    c << I << "  int64_t " << s.d << "[" << R << "] = {0};\n"
      << I << "  uint32_t " << s.r << " = 0;\n";
    if (s.matrix) c << I << "  unsigned char* " << s.b << " = NULL;\n";
  }
  c << I << "  unsigned char *br = NULL, *bs = NULL;\n"
    << I << "  int64_t rs[" << R << "] = {0};\n"
    << I << "  uint32_t rr = 0;\n";
  cleanup += "free(br); free(bs);";
  const std::string stop_all = cleanup + " " + e.stop;
  auto fail = [&](const std::string& message, const std::string& args) {
    return I + "    s->failed = fail(s, " + e.env.prefix() + "_ERR_RUN, \"" + message + "\"" +
           args + ");\n" + I + "    " + stop_all + "\n";
  };
  // The matrices read as the simulator reads them: the output's access first, then the inputs.
  auto read = [&](const Side& s, const std::string& at) {
    AutoDimContext ctx{e.index_c, e.env.prefix(), at, stop_all, I + "  "};
    AutoDimRuntime rt{s.b, s.d, s.r};
    AutoDimRead rd;
    rd.pad = false;
    const AccessText a = parse_access(s.text);
    return auto_dim_access(e.autodims.at(a.name), a, s.b, {}, false, ctx, rd, &rt);
  };
  auto static_dims = [&](const Side& s) {
    const Value& v = e.env.operand(s.text);
    c << I << "  " << s.r << " = " << v.shape.size() << "u;\n";
    for (size_t k = 0; k < v.shape.size(); ++k)
      c << I << "  " << s.d << "[" << k << "] = " << v.shape[k] << "ll;\n";
  };
  if (out.matrix)
    c << read(out, at_of("output_at", 0));
  else
    static_dims(out);
  for (size_t i = 0; i < n; ++i) {
    if (sides[i].matrix)
      c << read(sides[i], at_of("inputs_at", i));
    else
      static_dims(sides[i]);
  }
  // The result's shape by the op's rule (core/src/catalog/shape_rules.cpp).
  auto text_of = [&](const std::string& d, const std::string& r, const std::string& buf) {
    return I + "    char " + buf + "[256];\n" + I + "    oi_ad_text(" + buf + ", sizeof " + buf +
           ", " + d + ", " + r + ");\n";
  };
  const std::string rule_at = op_at + "op '" + format_text(name) + "': ";
  if (rule == "broadcast") {
    if (n == 0) {
      c << I << "  rr = rt;\n" << I << "  memcpy(rs, dt, sizeof rs);\n";
    } else {
      c << I << "  rr = r0;\n" << I << "  memcpy(rs, d0, sizeof rs);\n";
      for (size_t i = 1; i < n; ++i) {
        const std::string D = sides[i].d, Rk = sides[i].r;
        c << I << "  {\n";
        if (bcast) {
          c << I << "    int64_t o[" << R << "] = {0};\n"
            << I << "    const int b = oi_rt_broadcast(rs, rr, " << D << ", " << Rk << ", o);\n"
            << I << "    if (b < 0) {\n"
            << text_of("rs", "rr", "ta") << text_of(D, Rk, "tb")
            << fail(rule_at + "input shapes %s and %s do not broadcast", ", ta, tb") << I
            << "    }\n"
            << I << "    rr = (uint32_t)b;\n"
            << I << "    memcpy(rs, o, sizeof rs);\n";
        } else {
          c << I << "    int same = rr == " << Rk << ";\n"
            << I << "    for (uint32_t q = 0; same && q < rr; ++q) same = rs[q] == " << D
            << "[q];\n"
            << I << "    if (!same) {\n"
            << text_of("rs", "rr", "ta") << text_of(D, Rk, "tb")
            << fail(rule_at + "input shapes %s and %s differ and '" + format_text(name) +
                        "' does not broadcast",
                    ", ta, tb")
            << I << "    }\n";
        }
        c << I << "  }\n";
      }
    }
  } else if (rule == "scalar") {
    c << I << "  rr = 0;\n";
  } else if (rule == "same_as_input0_axis") {
    const int64_t axis = literal_int(settings, "axis", -1, where);
    c << I << "  if (" << axis << "ll < -(int64_t)r0 || " << axis << "ll >= (int64_t)r0) {\n"
      << fail(rule_at + "axis " + std::to_string(axis) + " is out of range for rank %u", ", r0")
      << I << "  }\n"
      << I << "  rr = r0;\n"
      << I << "  memcpy(rs, d0, sizeof rs);\n";
  } else if (rule == "transpose") {
    // Static checks (the input's rank is static), then the dims permuted.
    std::vector<int64_t> perm;
    const json::value* list = settings.if_contains("perm");
    const auto r = static_cast<int64_t>(rank_of(sides[0]));
    std::string error;
    if (list) {
      if (!list->is_array())
        c_gap("op-on-auto-dim", where + ": 'perm' that is not a list is not supported yet");
      for (const auto& x : list->as_array()) {
        if (!x.is_int64())
          c_gap("op-on-auto-dim", where + ": an axis that is not an integer is not supported yet");
        perm.push_back(x.as_int64());
      }
      if (static_cast<int64_t>(perm.size()) != r)
        error = "'perm' has " + std::to_string(perm.size()) + " entries but the input has rank " +
                std::to_string(r);
      std::set<int64_t> seen;
      for (size_t q = 0; q < perm.size() && error.empty(); ++q) {
        if (perm[q] < -r || perm[q] >= r) {
          error =
              "axis " + std::to_string(perm[q]) + " is out of range for rank " + std::to_string(r);
        } else {
          const int64_t a = perm[q] < 0 ? perm[q] + r : perm[q];
          if (!seen.insert(a).second)
            error = "axis " + std::to_string(perm[q]) + " is repeated in 'perm'";
          perm[q] = a;
        }
      }
    } else {
      for (int64_t q = r; q-- > 0;) perm.push_back(q);
    }
    if (!error.empty()) {
      c << I << "  {\n" << fail(rule_at + error, "") << I << "  }\n";
    } else {
      for (size_t q = 0; q < perm.size(); ++q)
        c << I << "  rs[" << q << "] = d0[" << perm[q] << "];\n";
      c << I << "  rr = " << perm.size() << "u;\n";
    }
  } else if (rule == "norm_trailing") {
    const auto r = static_cast<int64_t>(rank_of(sides[0]));
    const int64_t axis = literal_int(settings, "axis", -1, where);
    if (axis < -r || axis >= r) {
      c << I << "  {\n"
        << fail(rule_at + "axis " + std::to_string(axis) + " is out of range for rank " +
                    std::to_string(r),
                "")
        << I << "  }\n";
    } else {
      const int64_t a = axis < 0 ? axis + r : axis;
      for (size_t i = 1; i < n; ++i) {
        const std::string D = sides[i].d, Rk = sides[i].r, A = std::to_string(a);
        c << I << "  {\n"
          << I << "    int same = " << Rk << " == " << (r - a) << "u;\n"
          << I << "    for (uint32_t q = 0; same && q < " << Rk << "; ++q) same = " << D
          << "[q] == d0[" << A << " + q];\n"
          << I << "    if (!same) {\n"
          << text_of(D, Rk, "ta") << text_of("(d0 + " + A + ")", std::to_string(r - a) + "u", "tb")
          << text_of("d0", "r0", "tc")
          << fail(rule_at + "input " + std::to_string(i) +
                      " has shape %s but must have %s, the "
                      "dims of %s from axis " +
                      A,
                  ", ta, tb, tc")
          << I << "    }\n"
          << I << "  }\n";
      }
      c << I << "  rr = r0;\n" << I << "  memcpy(rs, d0, sizeof rs);\n";
    }
  } else if (rule == "reshape") {
    // The declared output: the output access's shape.
    c << I << "  {\n"
      << I << "    unsigned long long a = 1, b = 1;\n"
      << I << "    for (uint32_t q = 0; q < r0; ++q) a *= (unsigned long long)d0[q];\n"
      << I << "    for (uint32_t q = 0; q < rt; ++q) b *= (unsigned long long)dt[q];\n"
      << I << "    if (a != b) {\n"
      << text_of("d0", "r0", "ta") << text_of("dt", "rt", "tb")
      << fail(rule_at + "cannot reshape %s (%llu elements) to %s (%llu elements)", ", ta, a, tb, b")
      << I << "    }\n"
      << I << "  }\n"
      << I << "  rr = rt;\n"
      << I << "  memcpy(rs, dt, sizeof rs);\n";
  } else if (rule == "concat") {
    const auto r = static_cast<int64_t>(rank_of(sides[0]));
    const int64_t axis = literal_int(settings, "axis", 0, where);
    if (axis < -r || axis >= r) {
      c << I << "  {\n"
        << fail(rule_at + "axis " + std::to_string(axis) + " is out of range for rank " +
                    std::to_string(r),
                "")
        << I << "  }\n";
    } else {
      const std::string A = std::to_string(axis < 0 ? axis + r : axis);
      c << I << "  rr = r0;\n" << I << "  memcpy(rs, d0, sizeof rs);\n";
      for (size_t i = 1; i < n; ++i) {
        const std::string D = sides[i].d, Rk = sides[i].r;
        c << I << "  {\n"
          << I << "    int ok = " << Rk << " == r0;\n"
          << I << "    for (uint32_t q = 0; ok && q < r0; ++q) ok = q == " << A << "u || " << D
          << "[q] == d0[q];\n"
          << I << "    if (!ok) {\n"
          << text_of(D, Rk, "ta") << text_of("d0", "r0", "tb")
          << fail(rule_at + "input " + std::to_string(i) +
                      " has shape %s, which does not match %s outside axis " + A,
                  ", ta, tb")
          << I << "    }\n"
          << I << "    rs[" << A << "] += " << D << "[" << A << "];\n"
          << I << "  }\n";
      }
    }
  } else if (rule == "reduce_axes" || rule == "argreduce_axis") {
    // The input's rank is static (a matrix's or a value's): the axes kept are known now.
    const size_t rank = rank_of(sides[0]);
    const auto r = static_cast<int64_t>(rank);
    std::set<size_t> axes;
    std::string error;
    auto normalize = [&](int64_t x) -> std::optional<size_t> {
      if (x < -r || x >= r) {
        if (error.empty())
          error = "axis " + std::to_string(x) + " is out of range for rank " + std::to_string(r);
        return std::nullopt;
      }
      return static_cast<size_t>(x < 0 ? x + r : x);
    };
    if (rule == "argreduce_axis") {
      if (auto x = normalize(literal_int(settings, "axis", 0, where))) axes.insert(*x);
    } else if (const json::value* list = settings.if_contains("axes")) {
      if (!list->is_array())
        c_gap("op-on-auto-dim", where + ": 'axes' that is not a list is not supported yet");
      for (const auto& x : list->as_array()) {
        if (!x.is_int64())
          c_gap("op-on-auto-dim", where + ": an axis that is not an integer is not supported yet");
        if (!error.empty()) break;
        if (auto y = normalize(x.as_int64()); y && !axes.insert(*y).second)
          error = "axis " + std::to_string(x.as_int64()) + " is repeated in 'axes'";
      }
    } else {
      for (size_t q = 0; q < rank; ++q) axes.insert(q);
    }
    if (!error.empty()) {
      c << I << "  {\n" << fail(rule_at + error, "") << I << "  }\n";
    } else {
      const bool keep = flag_setting(settings, "keepdims");
      size_t o = 0;
      for (size_t q = 0; q < rank; ++q) {
        if (!axes.count(q))
          c << I << "  rs[" << o++ << "] = d0[" << q << "];\n";
        else if (keep)
          c << I << "  rs[" << o++ << "] = 1;\n";
      }
      c << I << "  rr = " << o << "u;\n";
    }
  } else if (rule == "matmul") {
    if (n < 2) invalid_plan(where + " has fewer than 2 inputs");
    c << I << "  {\n"
      << I << "    int64_t o[" << R << "] = {0};\n"
      << I << "    int b = -1;\n"
      << I << "    if (r0 < 2u || r1 < 2u) {\n"
      << text_of("d0", "r0", "ta") << text_of("d1", "r1", "tb")
      << fail(rule_at + "matmul needs inputs of rank >= 2, got %s and %s", ", ta, tb") << I
      << "    }\n"
      << I << "    if (d0[r0 - 1] != d1[r1 - 2]) {\n"
      << text_of("d0", "r0", "ta") << text_of("d1", "r1", "tb")
      << fail(rule_at + "matmul inner dimensions differ: %s x %s", ", ta, tb") << I << "    }\n"
      << I << "    b = oi_rt_broadcast(d0, r0 - 2u, d1, r1 - 2u, o);\n"
      << I << "    if (b < 0) {\n"
      << text_of("d0", "r0", "ta") << text_of("d1", "r1", "tb")
      << fail(rule_at + "matmul batch dimensions of %s and %s do not broadcast", ", ta, tb") << I
      << "    }\n"
      << I << "    memcpy(rs, o, sizeof rs);\n"
      << I << "    rs[b] = d0[r0 - 2];\n"
      << I << "    rs[b + 1] = d1[r1 - 1];\n"
      << I << "    rr = (uint32_t)b + 2u;\n"
      << I << "  }\n";
  }
  // The result against the output: equal, spread over a matrix access it broadcasts to, or
  // (a plain output) the simulator's error; a matrix's store reports another shape.
  const std::string out_name = parse_access(out.text).name;
  c << I << "  int same = rr == rt, spread = 0;\n"
    << I << "  for (uint32_t q = 0; same && q < rr; ++q) same = rs[q] == dt[q];\n"
    << I << "  (void)spread;\n";
  if (!out.matrix) {
    c << I << "  if (!same) {\n"
      << text_of("rs", "rr", "ta") << text_of("dt", "rt", "tb")
      << fail(op_at + "op '" + format_text(name) + "' produces shape %s but output '" +
                  format_text(out_name) + "' has shape %s",
              ", ta, tb")
      << I << "  }\n";
  } else {
    c << I << "  if (!same) {\n"
      << I << "    int64_t o[" << R << "] = {0};\n"
      << I << "    const int b = oi_rt_broadcast(rs, rr, dt, rt, o);\n"
      << I << "    spread = b == (int)rt;\n"
      << I << "    for (uint32_t q = 0; spread && q < rt; ++q) spread = o[q] == dt[q];\n"
      << I << "  }\n";
  }
  const std::string esize = std::to_string(dtype_size(out.dtype));
  c << I << "  {\n"
    << I << "    size_t cells = 1;\n"
    << I << "    for (uint32_t q = 0; q < rr; ++q) cells *= (size_t)rs[q];\n"
    << I << "    br = (unsigned char*)malloc(cells * " << esize << "u + 1u);\n"
    << I << "    if (!br) {\n"
    << I << "      s->failed = fail(s, " << e.env.prefix() << "_ERR_MEMORY, \"" << op_at
    << "out of memory for the result of op '" << format_text(name) << "'\");\n"
    << I << "      " << stop_all << "\n"
    << I << "    }\n";
  // The library's views: dims as uint64_t.
  std::vector<std::string> xs;
  for (size_t i = 0; i < n; ++i) {
    const Side& s = sides[i];
    c << I << "    uint64_t u" << i << "[" << R << "];\n"
      << I << "    for (uint32_t q = 0; q < " << s.r << "; ++q) u" << i << "[q] = (uint64_t)" << s.d
      << "[q];\n";
    xs.push_back("{(void*)" + s.p + ", " + std::to_string(dtype_tag(s.dtype)) + "u, " + s.r +
                 ", u" + std::to_string(i) + "}");
  }
  c << I << "    uint64_t ur[" << R << "];\n"
    << I << "    for (uint32_t q = 0; q < rr; ++q) ur[q] = (uint64_t)rs[q];\n";
  const std::string y = "{(void*)br, " + std::to_string(dtype_tag(out.dtype)) + "u, rr, ur}";
  c << I << "    if (cells) {\n";
  std::string call = library_call(e.env, op, *e.lib, e.used, xs, y, stop_all);
  // Indent the call's block to this depth.
  std::string indented;
  for (size_t p = 0, q; p < call.size(); p = q + 1) {
    q = call.find('\n', p);
    if (q == std::string::npos) q = call.size();
    indented += I + "    " + call.substr(p, q - p) + "\n";
  }
  c << indented << I << "    }\n" << I << "  }\n";
  if (!out.matrix) {
    c << I << "  memcpy(s->v_" << out_name << ", br, "
      << u(value_bytes(out.dtype, e.env.operand(out.text).numel())) << ");\n";
  } else {
    // Spread over the access (the simulator's broadcast_to), then stored as cache.write stores.
    c << I << "  if (spread) {\n"
      << I << "    size_t cells = 1;\n"
      << I << "    for (uint32_t q = 0; q < rt; ++q) cells *= (size_t)dt[q];\n"
      << I << "    bs = (unsigned char*)malloc(cells * " << esize << "u + 1u);\n"
      << I << "    if (!bs) {\n"
      << I << "      s->failed = fail(s, " << e.env.prefix() << "_ERR_MEMORY, \"" << op_at
      << "out of memory for the result of op '" << format_text(name) << "'\");\n"
      << I << "      " << stop_all << "\n"
      << I << "    }\n"
      << I << "    oi_rt_spread(" << esize << "u, br, rs, rr, bs, dt, rt);\n"
      << I << "    memcpy(rs, dt, sizeof rs);\n"
      << I << "    rr = rt;\n"
      << I << "    free(br);\n"
      << I << "    br = bs;\n"
      << I << "    bs = NULL;\n"
      << I << "  }\n";
    AutoDimContext ctx{e.index_c, e.env.prefix(), at_of("output_at", 0), stop_all, I + "  "};
    AutoDimRuntime rt{"br", "rs", "rr"};
    const AccessText a = parse_access(out.text);
    c << auto_dim_access(e.autodims.at(a.name), a, "br", {}, true, ctx, AutoDimRead(), &rt);
  }
  c << I << "  " << cleanup << "\n" << I << "}\n";
  return c.str();
}

}  // namespace oi::c_emitter
