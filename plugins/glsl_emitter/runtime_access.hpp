// Kernels of run-time length (runtime_length.hpp) that need the output access at run time:
// reshape, whose result's shape is the output access's (the catalog rule's declared output: a
// grown matrix, a part, table entries or a plain value), and acc=, which the simulator runs over
// the access (interpreter_op.cpp: the result must have the access's shape, or fill it where the
// op broadcasts). The kernel is recorded at every length as any other; the manifest's "access"
// (in "length") tells the host program to take the access's shape before the dispatch: reshape
// checks the element count and gives the result that shape, acc= checks the result's shape,
// both with the simulator's words.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan_input.hpp"
#include "runtime_length.hpp"

namespace oi::glsl {

// The result's shape kernel `op` is recorded with for the inputs' shapes `in`: for reshape the
// input's (the same elements; the host program gives it the access's shape) or, into a plain
// value of shape `*plain`, that shape (the host program checks the element count before the
// dispatch); else the catalog rule's (rule_result_shape).
std::optional<std::vector<uint64_t>> recorded_result_shape(
    const OpIn& op, const std::vector<std::vector<uint64_t>>& in,
    const std::vector<uint64_t>* plain, std::string& why, bool* words = nullptr);

// The output access of `op` as the manifest's copies name it ("to", and "auto_to" for a matrix,
// "to_entry" for table entries, neither for a plain value; "store_at" its position).
boost::json::object output_access(const OpIn& op, bool matrix, bool entries);

// The manifest's "access" of a kernel of run-time length: {"kind": "reshape" | "acc", "op",
// "at", "input" (reshape: the matrix read), "result" (the scratch value of the result, where
// the output is not a plain value), "spreads" (acc=: an elementwise op that broadcasts), and
// the output access}; empty where neither applies (acc= into a plain value: its shape the
// result's at every length, checked when recording).
boost::json::object runtime_access(const OpIn& op, const RuntimeOperand& ro);

// The manifest's "same_length" of a kernel of run-time length reading several matrices (each
// whole, growing along the same axis from the same size; empty for one): "inputs", the scratch
// values holding them, whose lengths must be equal at run time, and the op's operands and rule
// ("operands", "rule", "broadcast", "op": host/shape_rules.hpp's words where it fails for the
// lengths found; other lengths stop naming the gap).
boost::json::object same_length(const OpIn& op, const RuntimeOperand& ro);

}  // namespace oi::glsl
