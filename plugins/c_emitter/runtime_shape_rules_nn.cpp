// The NN ops' shape rules on matrices of run-time shape (runtime_shape_rules_nn.hpp).
#include "runtime_shape_rules_nn.hpp"

#include <sstream>
#include <vector>

namespace oi::c_emitter {
namespace {

// batch_norm: x [N, C, ...] with scale, bias, mean and var each [C] (one value per channel).
std::string batch_norm_code(const ShapeRuleText& t) {
  const std::string& I = t.indent;
  const std::vector<RuleOperand>& ins = t.inputs;
  const size_t n = ins.size();
  const std::string& rule_at = t.rule_at;
  const auto& fail = t.fail;
  auto text_of = [&](const std::string& d, const std::string& r, const std::string& buf) {
    return dims_text_code(I, d, r, buf);
  };
  std::ostringstream c;
  static const char* const kNames[] = {"x", "scale", "bias", "mean", "var"};
  if (ins.at(0).rank < 2) {
    c << I << "  {\n"
      << text_of("d0", "r0", "ta")
      << fail(rule_at + "batch_norm needs x of rank >= 2 (N, C, ...), got %s", ", ta") << I
      << "  }\n";
  } else {
    for (size_t i = 1; i < n && i < 5; ++i) {
      const std::string D = ins[i].d, Rk = ins[i].r;
      c << I << "  if (!(" << Rk << " == 1u && " << D << "[0] == d0[1])) {\n"
        << text_of(D, Rk, "ta")
        << fail(rule_at + "batch_norm " + kNames[i] + " %s must be [%lld], one value per channel",
                ", ta, (long long)d0[1]")
        << I << "  }\n";
    }
    c << I << "  rr = r0;\n" << I << "  memcpy(rs, d0, sizeof rs);\n";
  }
  return c.str();
}

// rope: x [..., T, D] with D even and pos a scalar; the result has x's shape.
std::string rope_code(const ShapeRuleText& t) {
  const std::string& I = t.indent;
  const std::vector<RuleOperand>& ins = t.inputs;
  const size_t n = ins.size();
  const std::string& where = t.where;
  const std::string& rule_at = t.rule_at;
  const auto& fail = t.fail;
  auto text_of = [&](const std::string& d, const std::string& r, const std::string& buf) {
    return dims_text_code(I, d, r, buf);
  };
  std::ostringstream c;
  if (n < 2) invalid_plan(where + " has fewer than 2 inputs");
  if (ins[0].rank < 2) {
    c << I << "  {\n"
      << text_of("d0", "r0", "ta")
      << fail(rule_at + "rope needs x of rank >= 2 ([..., T, D]), got %s", ", ta") << I << "  }\n";
  } else {
    c << I << "  if (d0[r0 - 1] % 2 != 0) {\n"
      << text_of("d0", "r0", "ta")
      << fail(rule_at + "rope needs an even last dim, got %lld in %s",
              ", (long long)d0[r0 - 1], ta")
      << I << "  }\n"
      << I << "  if (r1 != 0u) {\n"
      << text_of("d1", "r1", "ta") << fail(rule_at + "rope pos must be a scalar, got %s", ", ta")
      << I << "  }\n"
      << I << "  rr = r0;\n"
      << I << "  memcpy(rs, d0, sizeof rs);\n";
  }
  return c.str();
}

// dequantize: scale (and zero_point) a scalar or 1-D along `axis`; the result has x's shape.
std::string dequantize_code(const ShapeRuleText& t) {
  const std::string& I = t.indent;
  const std::vector<RuleOperand>& ins = t.inputs;
  const size_t n = ins.size();
  const std::string& where = t.where;
  const std::string& rule_at = t.rule_at;
  const auto& fail = t.fail;
  auto text_of = [&](const std::string& d, const std::string& r, const std::string& buf) {
    return dims_text_code(I, d, r, buf);
  };
  std::ostringstream c;
  if (n < 2) invalid_plan(where + " has fewer than 2 inputs");
  const size_t r = ins[0].rank;
  c << I << "  {\n";
  if (ins[1].rank > 1) {
    c << text_of("d1", "r1", "ta")
      << fail(rule_at + "dequantize scale must be a scalar or 1-D, got %s", ", ta");
  } else if (ins[1].rank == 1) {
    ShapeRuleText inner = t;
    inner.indent = I + "  ";
    c << axis_code(inner, "axis", 1, r) << I << "    if (d1[0] != d0[ax]) {\n"
      << text_of("d1", "r1", "ta")
      << fail(rule_at + "dequantize scale %s must have %lld entries, x's size along axis %u",
              ", ta, (long long)d0[ax], ax")
      << I << "    }\n";
  }
  if (n > 2)
    c << I << "    int same = r2 == r1;\n"
      << I << "    for (uint32_t q = 0; same && q < r1; ++q) same = d2[q] == d1[q];\n"
      << I << "    if (!same) {\n"
      << text_of("d2", "r2", "ta") << text_of("d1", "r1", "tb")
      << fail(rule_at + "dequantize zero_point %s must have scale's shape %s", ", ta, tb") << I
      << "    }\n";
  c << I << "    rr = r0;\n" << I << "    memcpy(rs, d0, sizeof rs);\n" << I << "  }\n";
  return c.str();
}

// attention: q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv], a mask -> [..., Tq, Dv].
std::string attention_code(const ShapeRuleText& t) {
  const std::string& I = t.indent;
  const std::vector<RuleOperand>& ins = t.inputs;
  const size_t n = ins.size();
  const std::string& where = t.where;
  const std::string& rule_at = t.rule_at;
  const auto& fail = t.fail;
  const std::string R = "OI_AD_RANK";
  auto text_of = [&](const std::string& d, const std::string& r, const std::string& buf) {
    return dims_text_code(I, d, r, buf);
  };
  std::ostringstream c;
  if (n < 3) invalid_plan(where + " has fewer than 3 inputs");
  c << I << "  {\n";
  if (ins[0].rank < 2 || ins[1].rank < 2 || ins[2].rank < 2) {
    c << text_of("d0", "r0", "ta") << text_of("d1", "r1", "tb") << text_of("d2", "r2", "tc")
      << fail(rule_at + "attention needs q, k and v of rank >= 2, got %s, %s and %s",
              ", ta, tb, tc");
  } else {
    c << I << "    const int64_t tq = d0[r0 - 2], dd = d0[r0 - 1], tk = d1[r1 - 2];\n"
      << I << "    int64_t o[" << R << "] = {0}, o2[" << R << "] = {0};\n"
      << I << "    int b = -1;\n"
      << I << "    if (d1[r1 - 1] != dd) {\n"
      << text_of("d1", "r1", "ta")
      << fail(rule_at + "attention k %s must end in q's depth %lld", ", ta, (long long)dd") << I
      << "    }\n"
      << I << "    if (d2[r2 - 2] != tk) {\n"
      << text_of("d2", "r2", "ta")
      << fail(rule_at + "attention v %s must have k's %lld keys", ", ta, (long long)tk") << I
      << "    }\n"
      << I << "    b = oi_rt_broadcast(d0, r0 - 2u, d1, r1 - 2u, o);\n"
      << I << "    if (b >= 0) b = oi_rt_broadcast(o, (uint32_t)b, d2, r2 - 2u, o2);\n"
      << I << "    if (b < 0) {\n"
      << text_of("d0", "r0", "ta") << text_of("d1", "r1", "tb") << text_of("d2", "r2", "tc")
      << fail(rule_at + "attention leading dims of q %s, k %s and v %s do not broadcast",
              ", ta, tb, tc")
      << I << "    }\n"
      << I << "    memcpy(rs, o2, sizeof rs);\n"
      << I << "    rs[b] = tq;\n"
      << I << "    rs[b + 1] = tk;\n";
    if (n > 3)
      c << I << "    {\n"
        << I << "      int64_t m[" << R << "] = {0};\n"
        << I << "      const int mb = oi_rt_broadcast(rs, (uint32_t)b + 2u, d3, r3, m);\n"
        << I << "      int same = mb == b + 2;\n"
        << I << "      for (int q = 0; same && q < mb; ++q) same = m[q] == rs[q];\n"
        << I << "      if (!same) {\n"
        << text_of("d3", "r3", "ta") << text_of("rs", "(uint32_t)b + 2u", "tb")
        << fail(rule_at + "attention mask %s does not broadcast to the scores %s", ", ta, tb") << I
        << "      }\n"
        << I << "    }\n";
    c << I << "    rs[b + 1] = d2[r2 - 1];\n" << I << "    rr = (uint32_t)b + 2u;\n";
  }
  c << I << "  }\n";
  return c.str();
}

}  // namespace

bool is_nn_rule(const std::string& rule) {
  return rule == "batch_norm" || rule == "rope" || rule == "dequantize" || rule == "attention";
}

std::string nn_rule_code(const ShapeRuleText& t, const std::string& rule) {
  if (rule == "batch_norm") return batch_norm_code(t);
  if (rule == "rope") return rope_code(t);
  if (rule == "dequantize") return dequantize_code(t);
  return attention_code(t);
}

}  // namespace oi::c_emitter
