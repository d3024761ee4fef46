#include "op_result_shape.hpp"

#include "openinfer/error.hpp"
#include "program.hpp"

namespace oi::exec {

Shape op_result_shape(const ResultShapeRule& rule, const std::string& op,
                      const std::vector<const Tensor*>& inputs,
                      std::span<const KernelSetting> settings, const Shape& declared,
                      const SourceLocation& loc) {
  const OpSchema& schema = *rule.schema;
  ShapeRuleContext ctx{schema, {}, declared, {}};
  for (const Tensor* t : inputs) ctx.inputs.push_back(t->shape());
  RuleSettings given(schema);  // the validator's reading of the settings
  for (const KernelSetting& s : settings)
    given.put(s.name, std::visit([](const auto& x) { return CatalogValue(x); }, s.value));
  ctx.settings = given.with_defaults();
  try {
    return (*rule.rule)(ctx);
  } catch (const ShapeRuleError& e) {
    throw input_error(where(loc) + "op '" + op + "': " + e.what());
  }
}

}  // namespace oi::exec
