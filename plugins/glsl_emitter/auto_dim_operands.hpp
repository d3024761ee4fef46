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
#include <string>
#include <vector>

#include "plan_input.hpp"

namespace oi::glsl {

struct OperandCopies {
  // per kernel id, the manifest's copy steps to run before and after its dispatch
  std::map<uint32_t, std::vector<boost::json::object>> before, after;
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

// Rewrites such operands of `plan`'s kernels to scratch values (added to plan.values, storage
// "scratch"). Refuses (glsl_gap "auto-dim-operand") an operand whose shape is known only at
// run time: a part of run-time length, a whole matrix in `growing` (computed before).
OperandCopies route_auto_dim_operands(PlanIn& plan, const GrowingMatrices& growing);

}  // namespace oi::glsl
