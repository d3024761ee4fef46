// Result shapes of ops on matrices of run-time shape (runtime_shape_rules.hpp).
#include "runtime_shape_rules.hpp"

#include <optional>
#include <set>
#include <sstream>

#include "runtime_shape_rules_nn.hpp"
#include "runtime_window_rules.hpp"
#include "tables.hpp"

namespace oi::c_emitter {

// The C of an integer setting (absent: `fallback`): a literal, or the variable of the loop
// index it names (c_generator.cpp resolve_settings: constant scalars and size variables are
// literals by then); another kind is an invalid plan (the validator refuses it).
std::string int_setting_c(const json::object& settings, const char* key, int64_t fallback,
                          const std::string& where) {
  const json::value* v = settings.if_contains(key);
  if (!v) return "(int64_t)" + std::to_string(fallback) + "ll";
  if (v->is_int64()) return "(int64_t)" + std::to_string(v->as_int64()) + "ll";
  if (v->is_uint64()) return "(int64_t)" + std::to_string(v->as_uint64()) + "ull";
  if (const auto* o = v->if_object(); o && o->contains("loop_index"))
    return "(int64_t)i_" + std::string(o->at("loop_index").as_string());
  invalid_plan(where + ": setting '" + key + "' is not an integer");
}

// The C that sets `uint32_t ax` to axis setting `key` (absent: `fallback`) normalized for rank
// `rank` at run time, or fails the step with the simulator's "axis A is out of range for rank R".
std::string axis_code(const ShapeRuleText& t, const char* key, int64_t fallback, size_t rank) {
  const std::string& I = t.indent;
  const std::string R = std::to_string(rank);
  return I + "  const int64_t ax_ = " + int_setting_c(t.settings, key, fallback, t.where) + ";\n" +
         I + "  if (ax_ < -" + R + "ll || ax_ >= " + R + "ll) {\n" +
         t.fail(t.rule_at + "axis %lld is out of range for rank " + R, ", (long long)ax_") + I +
         "  }\n" + I + "  const uint32_t ax = (uint32_t)(ax_ < 0 ? ax_ + " + R + "ll : ax_);\n" +
         I + "  (void)ax;\n";
}

namespace {

bool flag_setting(const json::object& settings, const char* key) {
  const json::value* v = settings.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

}  // namespace

// A list of integer settings; absent: nullopt. Another kind is an invalid plan (the validator
// takes only a list of literals there).
std::optional<std::vector<int64_t>> int_list(const json::object& settings, const char* key,
                                             const std::string& where) {
  const json::value* v = settings.if_contains(key);
  if (!v) return std::nullopt;
  std::vector<int64_t> out;
  if (v->is_array())
    for (const auto& x : v->as_array()) {
      if (x.is_int64())
        out.push_back(x.as_int64());
      else
        out.clear();
      if (!x.is_int64()) break;
    }
  if (!v->is_array() || out.size() != v->as_array().size())
    invalid_plan(where + ": setting '" + key + "' is not a list of integers");
  return out;
}

namespace {

// The simulator's "axis A is out of range for rank R" where `axis` is outside [-rank, rank).
std::optional<size_t> axis_in(int64_t axis, size_t rank, std::string& error) {
  const auto r = static_cast<int64_t>(rank);
  if (axis >= -r && axis < r) return static_cast<size_t>(axis < 0 ? axis + r : axis);
  error = "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank);
  return std::nullopt;
}

}  // namespace

// The catalog's output-shape rule of a plan op ("shape_rule" and "broadcast", as the planner
// writes them), where this file, runtime_window_rules.cpp or runtime_shape_rules_nn.cpp
// evaluates it.
std::string shape_rule(const json::object& op, bool& broadcast) {
  static const std::set<std::string> evaluated = {"broadcast",
                                                  "reduce_axes",
                                                  "argreduce_axis",
                                                  "matmul",
                                                  "same_as_input0_axis",
                                                  "scalar",
                                                  "norm_trailing",
                                                  "pool",
                                                  "transpose",
                                                  "reshape",
                                                  "concat",
                                                  "gather",
                                                  "pad",
                                                  "slice",
                                                  "conv",
                                                  "batch_norm",
                                                  "rope",
                                                  "dequantize",
                                                  "attention"};
  const json::value* rule = op.if_contains("shape_rule");
  const json::value* bc = op.if_contains("broadcast");
  if (!rule || !rule->is_string() || !bc || !bc->is_bool())
    invalid_plan(op_where(op) +
                 ": an op without its catalog shape rule ('shape_rule', "
                 "'broadcast')");
  broadcast = bc->as_bool();
  const std::string r(rule->as_string());
  return evaluated.count(r) ? r : "";
}

std::string dims_text_code(const std::string& indent, const std::string& d, const std::string& r,
                           const std::string& buf) {
  return indent + "    char " + buf + "[256];\n" + indent + "    oi_ad_text(" + buf + ", sizeof " +
         buf + ", " + d + ", " + r + ");\n";
}

std::string result_shape_code(const ShapeRuleText& t, const std::string& rule, bool bcast) {
  const std::string& I = t.indent;
  const std::string& where = t.where;
  const std::string& name = t.name;
  const std::string& rule_at = t.rule_at;
  const json::object& settings = t.settings;
  const std::vector<RuleOperand>& ins = t.inputs;
  const size_t n = ins.size();
  const std::string R = "OI_AD_RANK";
  const auto& fail = t.fail;
  auto text_of = [&](const std::string& d, const std::string& r, const std::string& buf) {
    return dims_text_code(I, d, r, buf);
  };
  std::ostringstream c;
  if (is_window_rule(rule)) return window_rule_code(t, rule);  // runtime_window_rules.cpp
  if (is_nn_rule(rule)) return nn_rule_code(t, rule);          // runtime_shape_rules_nn.cpp
  if (rule == "broadcast") {
    if (n == 0) {
      c << I << "  rr = rt;\n" << I << "  memcpy(rs, dt, sizeof rs);\n";
    } else {
      c << I << "  rr = r0;\n" << I << "  memcpy(rs, d0, sizeof rs);\n";
      for (size_t i = 1; i < n; ++i) {
        const std::string D = ins[i].d, Rk = ins[i].r;
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
    c << axis_code(t, "axis", -1, ins.at(0).rank) << I << "  rr = r0;\n"
      << I << "  memcpy(rs, d0, sizeof rs);\n";
  } else if (rule == "transpose") {
    // Static checks (the input's rank is static), then the dims permuted.
    std::vector<int64_t> perm;
    const json::value* list = settings.if_contains("perm");
    const auto r = static_cast<int64_t>(ins.at(0).rank);
    std::string error;
    if (list) {
      perm = *int_list(settings, "perm", where);
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
    c << axis_code(t, "axis", -1, ins.at(0).rank);
    for (size_t i = 1; i < n; ++i) {
      const std::string D = ins[i].d, Rk = ins[i].r;
      c << I << "  {\n"
        << I << "    int same = " << Rk << " == r0 - ax;\n"
        << I << "    for (uint32_t q = 0; same && q < " << Rk << "; ++q) same = " << D
        << "[q] == d0[ax + q];\n"
        << I << "    if (!same) {\n"
        << text_of(D, Rk, "ta") << text_of("(d0 + ax)", "r0 - ax", "tb")
        << text_of("d0", "r0", "tc")
        << fail(rule_at + "input " + std::to_string(i) +
                    " has shape %s but must have %s, the dims of %s from axis %u",
                ", ta, tb, tc, ax")
        << I << "    }\n"
        << I << "  }\n";
    }
    c << I << "  rr = r0;\n" << I << "  memcpy(rs, d0, sizeof rs);\n";
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
    c << axis_code(t, "axis", 0, ins.at(0).rank) << I << "  rr = r0;\n"
      << I << "  memcpy(rs, d0, sizeof rs);\n";
    for (size_t i = 1; i < n; ++i) {
      const std::string D = ins[i].d, Rk = ins[i].r;
      c << I << "  {\n"
        << I << "    int ok = " << Rk << " == r0;\n"
        << I << "    for (uint32_t q = 0; ok && q < r0; ++q) ok = q == ax || " << D
        << "[q] == d0[q];\n"
        << I << "    if (!ok) {\n"
        << text_of(D, Rk, "ta") << text_of("d0", "r0", "tb")
        << fail(rule_at + "input " + std::to_string(i) +
                    " has shape %s, which does not match %s outside axis %u",
                ", ta, tb, ax")
        << I << "    }\n"
        << I << "    rs[ax] += " << D << "[ax];\n"
        << I << "  }\n";
    }
  } else if (rule == "argreduce_axis") {
    // One axis, known at run time: dropped, or kept with length 1.
    c << axis_code(t, "axis", 0, ins.at(0).rank) << I << "  rr = 0;\n"
      << I << "  for (uint32_t q = 0; q < r0; ++q)\n"
      << I << "    if (q != ax)\n"
      << I << "      rs[rr++] = d0[q];\n"
      << (flag_setting(settings, "keepdims") ? I + "    else\n" + I + "      rs[rr++] = 1;\n" : "");
  } else if (rule == "reduce_axes") {
    // The input's rank is static (a matrix's or a value's): the axes kept are known now.
    const size_t rank = ins.at(0).rank;
    std::set<size_t> axes;
    std::string error;
    auto normalize = [&](int64_t x) -> std::optional<size_t> {
      std::string e;
      const auto a = axis_in(x, rank, e);
      if (!a && error.empty()) error = e;  // the first bad axis, as the simulator names it
      return a;
    };
    if (const auto list = int_list(settings, "axes", where)) {
      for (const int64_t x : *list) {
        if (!error.empty()) break;
        if (auto y = normalize(x); y && !axes.insert(*y).second)
          error = "axis " + std::to_string(x) + " is repeated in 'axes'";
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
  } else if (rule == "gather") {
    // data's dims with the `axis` dim replaced by the indices' dims (shape_rules.cpp gather).
    if (n < 2) invalid_plan(where + " has fewer than 2 inputs");
    c << axis_code(t, "axis", 0, ins[0].rank) << I << "  rr = 0;\n"
      << I << "  for (uint32_t q = 0; q < ax; ++q) rs[rr++] = d0[q];\n"
      << I << "  for (uint32_t q = 0; q < r1; ++q) rs[rr++] = d1[q];\n"
      << I << "  for (uint32_t q = ax + 1u; q < r0; ++q) rs[rr++] = d0[q];\n";
  } else if (rule == "pad") {
    // Each dim grows by its begin and end pads; the counts are checked now, the modes' needs of
    // the run-time dims at run time (shape_rules.cpp pad).
    const auto pads = int_list(settings, "pads", where);
    const size_t r = ins.at(0).rank;
    const json::value* mode_v = settings.if_contains("mode");
    if (mode_v && !mode_v->is_string()) invalid_plan(where + ": setting 'mode' is not a string");
    const std::string mode = mode_v ? std::string(mode_v->as_string()) : "constant";
    std::string error;
    if (!pads)
      error = "pad needs 'pads'";
    else if (pads->size() != 2 * r)
      error = "'pads' has " + std::to_string(pads->size()) + " entries but needs " +
              std::to_string(2 * r) + " (begin and end per axis)";
    if (!error.empty()) {
      c << I << "  {\n" << fail(rule_at + error, "") << I << "  }\n";
    } else {
      c << I << "  rr = r0;\n";
      for (size_t a = 0; a < r; ++a) {
        const int64_t b = (*pads)[a], e = (*pads)[a + r];
        const std::string A = std::to_string(a), D = "d0[" + A + "]";
        if (b < 0 || e < 0) {
          c << I << "  {\n"
            << fail(rule_at + "'pads' of axis " + A + " is negative (crop with slice)", "") << I
            << "  }\n";
          break;
        }
        if (mode == "reflect" && (b > 0 || e > 0))
          c << I << "  if (" << b << "ll >= " << D << " || " << e << "ll >= " << D << ") {\n"
            << fail(rule_at + "reflect pads of axis " + A + " must be smaller than its size %lld",
                    ", (long long)" + D)
            << I << "  }\n";
        if (mode == "edge" && (b > 0 || e > 0))
          c << I << "  if (" << D << " == 0) {\n"
            << fail(rule_at + "edge padding of axis " + A + ", which is empty", "") << I << "  }\n";
        c << I << "  rs[" << A << "] = " << D << " + " << b << "ll + " << e << "ll;\n";
      }
    }
  }
  return c.str();
}

}  // namespace oi::c_emitter
