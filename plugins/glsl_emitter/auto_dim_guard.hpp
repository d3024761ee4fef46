// An op reading a whole @auto_dim matrix that some access grows (its shape known only at run
// time), where the op's static output pins that shape: the kernel is written for the declared
// shape, and a matrix of another shape at run time is exactly the case where the simulator
// stops, so the host program stops there with the simulator's words (host/shape_rules.hpp).
//
// "Pins" means: by the op's catalog shape rule, the other operands' static shapes and the
// output's, every axis the matrix may grow along (its auto axes; counts only grow, from the
// declared size) either gives an axis of the result, which must equal the output's, or must
// equal a static dimension of another operand, so no larger size gives the output's shape.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan_input.hpp"

namespace oi::glsl {

// The guard of input `j` of op `op` of kernel `k` (the op alone in its kernel, or the head of a
// matmul or reduction kernel), a matrix of declared shape `declared` whose leading `grows`
// axes may grow: the copy step's "guard" (host/shape_rules.hpp reads it), or nullopt with
// `why` saying what keeps the shape open (another operand of run-time shape, an output that is
// not a plain value, a rule not covered, an axis the rule leaves free).
std::optional<boost::json::object> runtime_operand_guard(const PlanIn& plan, const KernelIn& k,
                                                         const OpIn& op, size_t j,
                                                         const std::vector<uint64_t>& declared,
                                                         size_t grows, std::string& why);

}  // namespace oi::glsl
