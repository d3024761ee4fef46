// Kernels a plan fused around an operand of run-time shape: an @auto_dim matrix (its length grows
// at run time) or a window of table entries (`K[0]`, `>> S[0..c]`). The planner gives such an op
// a kernel of its own (build_schedule.cpp's plain_operands: neither a head nor a joining op has
// such an operand), but a plan fused by hand may hold one among others. Such a kernel runs its
// ops one after another, as the simulator runs them, each a kernel of its own that the routing
// of matrices and windows handles alone (auto_dim_operands.hpp, table_window_inputs.hpp,
// window_outputs.hpp: kernels of run-time length among them); the C target does the same
// (c_generator.cpp's split_kernel).
#pragma once

#include "plan_input.hpp"

namespace oi::glsl {

// Splits every such kernel of `plan`: its first op keeps the kernel, each other op gets a kernel
// of its own (ids past the plan's, of the class and shape the planner gives an op alone), its
// kernel step right after the first one's; a value the kernel kept internal gets memory of its
// own (storage "scratch"), since the kernels after it read it.
void split_fused_kernels(PlanIn& plan);

}  // namespace oi::glsl
