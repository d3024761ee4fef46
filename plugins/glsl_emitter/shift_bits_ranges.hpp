// shl/shr's `bits` named in the graph (a loop index, or a constant scalar or size variable that
// resolve_settings made a number): the simulator checks 0 <= bits < the input's width when the
// step reaches the op (interpreter_op.cpp) and stops it in the validator's words. The host
// program makes the same check before the kernel's dispatch (the step's "ranges").
#pragma once

#include <boost/json.hpp>

#include "plan_input.hpp"

namespace oi::glsl {

// One check per such op of kernel `k`: {"index": I} (a loop index) or {"value": N} (a number
// out of range, which fails whenever the kernel runs), with "width" W and "message", the
// simulator's words with {value} for the count. Empty where the kernel shifts by no such count.
boost::json::array shift_bits_ranges(const PlanIn& plan, const KernelIn& k);

}  // namespace oi::glsl
