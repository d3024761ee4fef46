// The values an integer setting naming a loop index can take where it changes more than a
// params word of the Vulkan backend's kernel (an op's `axis`, conv's `group`), one kernel copy
// each, and what the simulator does at every other value (loop_settings.hpp's finite_classes).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "plan_input.hpp"

namespace oi::glsl {

// The domain of `op`'s axis named by loop index `index`, the op's first input of rank R (the
// ops of the catalog with an `axis` setting: softmax, log_softmax, iota, layer_norm, rms_norm,
// dequantize, argmax_axis, argmin_axis, concat, gather; by their catalog shape rule). The
// copies are one per axis (the index's value made non-negative), or, where `raw` (the index
// also names a bool setting, which takes the value before it is made non-negative: -2 is true,
// axis 0 of rank 2), one per value in [-R, R). At each value the simulator checks the catalog's
// shape rule (core's shape_rules.cpp) for a setting naming a variable: a value out of range
// is its error M with {value} (`message`), and a value whose further inputs do not fit the rule
// (a norm's scale without the trailing dims, concat of other dims, a dequantize scale of
// another length) or whose result has another shape than the output (a plain output: the
// interpreter's "produces shape"; a table entry the result does not broadcast to: cache.write's
// "cannot store") its words, in `errors` by value; where another index J names the op's
// keepdims (a bool: a copy for each of its values), by value and keepdims, "V/0" and "V/1"
// ("keep": J; a value fits where it fits with either). Appends {"axis": R, "message": M,
// "errors", "raw", "keep"} to `classes` and the values of a copy to `domains` (none where no value
// fits: each stops the step); false (nothing appended) where the output is a window, a whole table
// or a matrix, a result smaller than a table entry would be spread over it, or the op has no such
// rule.
bool axis_domain(const PlanIn& plan, const OpIn& op, const std::string& index, bool raw,
                 boost::json::array& classes, std::vector<std::vector<int64_t>>& domains);

// The domain of conv's `group` named by a loop index: conv's catalog rule (x [N, C, ...], w
// [M, C/group, ...]) holds for one value only, C / w[1]; at any other the simulator stops with
// the rule's words, which the host program writes from {"group": {"at", "c", "m", "w1", "x",
// "w"}} (appended to `classes`; the domain, that one value or none where no value fits, to
// `domains`). False where the operands are not of static shape.
bool group_domain(const PlanIn& plan, const OpIn& op, boost::json::array& classes,
                  std::vector<std::vector<int64_t>>& domains);

}  // namespace oi::glsl
