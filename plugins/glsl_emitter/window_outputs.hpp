// Op outputs that are windows of table entries (`op add(x, x) >> K[1..3]`, dsl.md: slices are
// allowed in op outputs): the kernel writes a scratch value of the window's shape instead (of
// the op's result, where the window's length is known only at run time), and a copy step after
// its dispatch stores it into the entries (the host program's copy: @fixed bounds, growth and
// the table budget checked as for `cache.write x >> K[1..3]`; a result smaller than the window
// spread over it, as the simulator does).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan_input.hpp"

namespace oi::glsl {

// The length of window term "a..b": b - a when both are static, n for "X..X+n" (the same name
// or integer both sides), else nullopt.
std::optional<int64_t> window_length(const PlanIn& plan, const std::string& term);

// The shape op `op` computes where it is static: an elementwise op's inputs' broadcast shape
// (whole values and table entries; alone in its kernel, or its first op where that shape is the
// kernel's); another op's, alone in its kernel, the kernel's where the planner gave the kernel
// the op's result shape (more axes than `entry_rank`, the rank of an entry of the table it
// writes; or, as build_schedule.cpp's table_result_shape gives it, every input a whole value of
// static shape, every setting a literal, no acc=), else its catalog rule's (rule_result_shape,
// runtime_length.hpp) for inputs that are whole values, table entries or scratch values of
// static shape (a table window of static length, a matrix's part), no setting naming a loop
// index, no acc=. Else nullopt. `acc`: an op alone in its kernel with acc= too (its result's
// shape is its inputs' as without it; another op's by its catalog rule).
std::optional<std::vector<uint64_t>> op_result_shape(const PlanIn& plan, const KernelIn& k,
                                                     const OpIn& op, size_t entry_rank,
                                                     bool acc = false);

// Rewrites such outputs of `plan`'s kernels to scratch values (added to plan.values, storage
// "scratch") and returns, per kernel id, the copy steps of the manifest to run after it.
// Refuses (glsl_gap "table-window-operand") a window whose length is known only at run time
// written by an op whose result's shape is not static (op_result_shape). An op alone in its
// kernel with acc= into such a window computes its result's shape too, and the copy checks the
// access as the simulator does (interpreter_op.cpp): the same shape, or for an op that
// broadcasts (the catalog's rule "broadcast" with broadcasting) a result that broadcasts to it,
// spread over it; another is the simulator's "op 'X' produces shape R but the access to 'K' has
// shape A" (the copy's "acc").
std::map<uint32_t, std::vector<boost::json::object>> route_window_outputs(PlanIn& plan);

}  // namespace oi::glsl
