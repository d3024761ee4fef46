// The result shape of an op on matrices of run-time shape (runtime_kernel.hpp): the op's catalog
// rule (core/src/catalog/shape_rules.cpp, shape_rules_nn.cpp) written as C that computes it from
// the operands' run-time dims, with the rule's error, word for word, where the shapes do not fit
// it. What the rule needs of the settings is read now, but an axis naming a loop index, which the
// C reads at run time (`i_NAME`); constant scalars and size variables are literals by then.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "c_common.hpp"

namespace oi::c_emitter {

// The C of an integer setting (absent: `fallback`): a literal, or the loop index it names; and
// a list of integer settings (absent: nullopt), read at generation time. Another kind is an
// invalid plan (the validator refuses it).
std::string int_setting_c(const json::object& settings, const char* key, int64_t fallback,
                          const std::string& where);
std::optional<std::vector<int64_t>> int_list(const json::object& settings, const char* key,
                                             const std::string& where);

// The catalog's output-shape rule of plan op `op` ("" where no run-time rule of this emitter
// evaluates it: a rule a kernel pack registers), and whether the op broadcasts its inputs.
std::string shape_rule(const json::object& op, bool& broadcast);

// An operand as the C sees it: its dims and rank (C names, `d0`, `r0`), and its static rank.
struct RuleOperand {
  std::string d, r;
  size_t rank = 0;
};

struct ShapeRuleText {
  std::string where, name;  // the op, for gaps; its name
  std::string rule_at;      // the error's start: "<at>: op '<name>': "
  std::string indent;
  const json::object& settings;
  std::vector<RuleOperand> inputs;  // the inputs; the output's dims are `dt`, `rt`
  // The C that fails the step with a message (a printf format) and its arguments (", a, b").
  std::function<std::string(const std::string&, const std::string&)> fail;
};

// The C that sets `uint32_t ax` to axis setting `key` (absent: `fallback`) normalized for rank
// `rank` at run time, or fails the step with the simulator's "axis A is out of range for rank R".
std::string axis_code(const ShapeRuleText& t, const char* key, int64_t fallback, size_t rank);

// The C that sets `rs`/`rr` (dims, rank) to the result's shape by rule `rule`, or fails the step
// with the rule's error.
std::string result_shape_code(const ShapeRuleText& t, const std::string& rule, bool broadcast);

// The C that writes dims `d` of rank `r` as text into a fresh buffer `buf` ("[2, 3]").
std::string dims_text_code(const std::string& indent, const std::string& d, const std::string& r,
                           const std::string& buf);

}  // namespace oi::c_emitter
