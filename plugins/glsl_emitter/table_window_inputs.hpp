// Op inputs that are windows of table entries (dsl.md: `K[l]` of `K(l, t)` takes the missing
// trailing indices as whole axes; `K[a..b]`, `K[]`): the entries stacked along new leading
// axes, read as cache.read reads them. The kernel reads a scratch value instead (`@twK_I_J` in
// the manifest's values), which a copy step before its dispatch fills (the host program's copy:
// unwritten entries as @init, a slice past a @fixed bound the simulator's error). A window of
// static length gives the scratch value its shape. One whose length is known only at run time
// (`K[0]` of a table growing along t, `K[1..c+1]`) makes the kernel one of run-time length
// (runtime_length.hpp): the length is the window's along its one axis of run-time length, the
// kernel recorded for every length 0..hi (hi the index's @fixed bound, else 512 entries, less
// where the scratch value would pass 16 MiB); the copy sets the scratch value's shape from the
// window and stops the run naming the gap for a window longer than hi.
#pragma once

#include "auto_dim_operands.hpp"
#include "plan_input.hpp"

namespace oi::glsl {

// Rewrites such inputs of `plan`'s kernels to scratch values (storage "scratch"), adding their
// copies to `copies.before` and a kernel reading a window of run-time length to
// `copies.runtime` (route_auto_dim_operands, run after, then routes its output as for a matrix
// of run-time length). Refuses (glsl_gap "table-window-operand") a window of run-time length
// read by an op with a setting naming a loop index, along two axes of run-time length,
// beside another window of run-time length (another access), or into an output that is neither a
// plain value, a matrix of one key nor table entries of one key. An op among others of a kernel has
// one of its own first (split_fused.hpp).
void route_table_window_inputs(PlanIn& plan, OperandCopies& copies);

}  // namespace oi::glsl
