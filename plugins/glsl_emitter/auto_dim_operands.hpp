// Op operands that are @auto_dim matrices (dsl.md: an op may read `M`, `M[r, c]` or a part
// `M[a..b, c..d]`, and write them as cache.write stores): the host program keeps the matrices,
// so the kernel reads and writes scratch values of the operand's shape instead, a copy step
// before its dispatch reads the matrix (the host program's cache.read) and one after it stores
// the result (its cache.write: growth, @init cells, the simulator's messages).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <vector>

#include "plan_input.hpp"

namespace oi::glsl {

struct OperandCopies {
  // per kernel id, the manifest's copy steps to run before and after its dispatch
  std::map<uint32_t, std::vector<boost::json::object>> before, after;
};

// Rewrites such operands of `plan`'s kernels to scratch values (added to plan.values, storage
// "scratch"). Refuses (glsl_gap "auto-dim-operand") an operand whose shape is known only at
// run time: a part of run-time length, a whole matrix some access of the plan grows.
OperandCopies route_auto_dim_operands(PlanIn& plan);

}  // namespace oi::glsl
