// Op operands that are @auto_dim matrices (dsl.md: an op may read `M`, `M[r, c]` or a part
// `M[a..b, c..d]`, and write them as cache.write stores): the host program keeps the matrices,
// so the kernel reads and writes scratch values of the operand's shape instead, a copy step
// before its dispatch reads the matrix (the host program's cache.read) and one after it stores
// the result (its cache.write: growth, @init cells, the simulator's messages).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plan_input.hpp"
#include "runtime_length.hpp"

namespace oi::glsl {

struct OperandCopies {
  // per kernel id, the manifest's copy steps to run before and after its dispatch
  std::map<uint32_t, std::vector<boost::json::object>> before, after;
  // per kernel id, a whole matrix of run-time length it reads (runtime_length.hpp)
  std::map<uint32_t, RuntimeOperand> runtime;
};

// The matrices whose counts some access of the plan may grow (a scalar auto index other than 0;
// slices never grow them), each with one such access as written.
using GrowingMatrices = std::map<std::string, std::string>;
GrowingMatrices growing_matrices(const PlanIn& plan);

// The shape of access `text` of @auto_dim matrix `m` (stacked @table slices, then the whole
// matrix or the part), where it is static: the whole matrix has its declared shape when `read`
// is false or it is not in `growing`, a part needs windows of static length. Else
// nullopt, with `why` saying what is known only at run time.
std::optional<std::vector<uint64_t>> matrix_access_shape(const PlanIn& plan, const ValueIn& m,
                                                         const std::string& text, bool read,
                                                         const GrowingMatrices& growing,
                                                         std::string& why);

// The auto axes of matrix `m` that some access of the plan grows (a scalar term other than 0
// there).
std::set<size_t> growing_axes(const PlanIn& plan, const ValueIn& m);

// Rewrites such operands of `plan`'s kernels to scratch values (added to plan.values, storage
// "scratch"). A whole matrix in `growing` (computed before) read by an op (alone in its kernel:
// split_fused.hpp) along one growing axis, the op's other operands plain values, its output a
// plain value or a matrix: the kernel is one of run-time length (`runtime`). Refuses (glsl_gap
// "auto-dim-operand") another operand whose shape is known only at run time: a part of
// run-time length, a whole matrix otherwise.
// `copies`: those routed before (table_window_inputs.hpp), added to.
OperandCopies route_auto_dim_operands(PlanIn& plan, const GrowingMatrices& growing,
                                      OperandCopies copies = {});

}  // namespace oi::glsl
