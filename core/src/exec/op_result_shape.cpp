#include "op_result_shape.hpp"

#include "openinfer/error.hpp"

namespace oi::exec {

Shape op_result_shape(const ResultShapeRule& rule, const std::string& op,
                      const std::vector<const Tensor*>& inputs,
                      std::span<const KernelSetting> settings, const Shape& declared,
                      const std::string& where) {
  const OpSchema& schema = *rule.schema;
  ShapeRuleContext ctx{schema, {}, declared, {}};
  for (const Tensor* t : inputs) ctx.inputs.push_back(t->shape());
  // The validator's view of the settings: numbers as doubles, defaults filled in.
  for (const KernelSetting& s : settings) {
    const SettingSpec* spec = schema.find_setting(s.name);
    if (spec == nullptr) continue;
    CatalogValue v = std::visit([](const auto& x) { return CatalogValue(x); }, s.value);
    if (spec->type == SettingType::Number)
      if (const auto* i = std::get_if<int64_t>(&v)) v = static_cast<double>(*i);
    ctx.settings[spec->name] = std::move(v);
  }
  for (const SettingSpec& spec : schema.settings)
    if (spec.default_value && !ctx.settings.count(spec.name))
      ctx.settings[spec.name] = *spec.default_value;
  try {
    return (*rule.rule)(ctx);
  } catch (const ShapeRuleError& e) {
    throw input_error(where + "op '" + op + "': " + e.what());
  }
}

}  // namespace oi::exec
