// The slice, conv and pool shape rules on matrices of run-time shape (runtime_shape_rules.hpp):
// core's rules (core/src/catalog/shape_rules.cpp slice, shape_rules_nn.cpp conv and pool) as C
// that computes the result's dims with the SDK's openinfer/geometry.h, which the program ships
// (kernel_library.cpp), so slice ranges and windows are computed by the one arithmetic the
// validator, the backends and the C kernel library use. What depends only on the settings and
// the static ranks is checked now (its error is the step's, word for word); the rest at run time.
#pragma once

#include <string>

#include "runtime_shape_rules.hpp"

namespace oi::c_emitter {

// Whether `rule` is one of this file's ("slice", "conv", "pool").
bool is_window_rule(const std::string& rule);

// The C that sets `rs`/`rr` to the result's shape by `rule`, or fails the step with the rule's
// error (ShapeRuleText's `fail`).
std::string window_rule_code(const ShapeRuleText& t, const std::string& rule);

}  // namespace oi::c_emitter
