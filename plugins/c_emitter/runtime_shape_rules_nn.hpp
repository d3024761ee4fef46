// The NN ops' shape rules on matrices of run-time shape (runtime_shape_rules.hpp): core's
// batch_norm, rope, dequantize and attention rules (core/src/catalog/shape_rules_nn.cpp) as C that
// computes the result's dims from the operands' run-time dims, with the rule's error, word for
// word, where the shapes do not fit it. (conv and pool are runtime_window_rules.hpp's.)
#pragma once

#include <string>

#include "runtime_shape_rules.hpp"

namespace oi::c_emitter {

// Whether `rule` is one of this file's ("batch_norm", "rope", "dequantize", "attention").
bool is_nn_rule(const std::string& rule);

// The C that sets `rs`/`rr` to the result's shape by `rule`, or fails the step with the rule's
// error (ShapeRuleText's `fail`).
std::string nn_rule_code(const ShapeRuleText& t, const std::string& rule);

}  // namespace oi::c_emitter
