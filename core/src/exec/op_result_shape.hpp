// An op's result shape for the operands of one call, by its catalog shape rule: what the
// validator checks when shapes are static, checked at run time where a table slice, an
// @auto_dim matrix or a prefix entry gives an operand its shape.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "openinfer/graph.hpp"
#include "openinfer/op_catalog.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/tensor.hpp"

namespace oi::exec {

// The schema and rule an op's run-time check needs (shared by every call of the node).
struct ResultShapeRule {
  std::shared_ptr<const OpSchema> schema;
  const ShapeRuleFn* rule = nullptr;
};

// The result shape for `inputs` and the call's settings (canonical names), with `declared`
// standing for the output's shape (the "declared" and "reshape" rules take it). Throws
// oi::Error (Input) prefixed by where(loc) when the operands do not fit the op (the prefix is
// built only then: this runs on every node with a run-time shaped operand).
Shape op_result_shape(const ResultShapeRule& rule, const std::string& op,
                      const std::vector<const Tensor*>& inputs,
                      std::span<const KernelSetting> settings, const Shape& declared,
                      const SourceLocation& loc);

}  // namespace oi::exec
