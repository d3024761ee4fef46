// Catalog and validator access for the executor (see op_facts.hpp for why it is separate).
#include "op_facts.hpp"

#include "openinfer/error.hpp"
#include "openinfer/model.hpp"
#include "openinfer/op_catalog.hpp"
#include "openinfer/validate.hpp"

namespace oi::exec {
namespace {

SettingKind to_kind(SettingType t) {
  switch (t) {
    case SettingType::Int:
      return SettingKind::Int;
    case SettingType::Number:
      return SettingKind::Number;
    case SettingType::Bool:
      return SettingKind::Bool;
    case SettingType::String:
      return SettingKind::String;
    case SettingType::DType:
      return SettingKind::DType;
    case SettingType::IntList:
      return SettingKind::IntList;
  }
  return SettingKind::Number;
}

KernelValue to_kernel_value(const CatalogValue& v) {
  return std::visit([](const auto& x) { return KernelValue(x); }, v);
}

}  // namespace

const OpCatalog& catalog_or_builtin(const OpCatalog* catalog) {
  return catalog != nullptr ? *catalog : OpCatalog::builtin();
}

std::optional<OpFacts> op_facts(const OpCatalog& catalog, std::string_view op) {
  const OpSchema* schema = catalog.find(op);
  if (schema == nullptr) return std::nullopt;
  OpFacts facts;
  facts.inplace = schema->inplace;
  for (const SettingSpec& spec : schema->settings) {
    SettingFact fact{spec.name, spec.aliases, to_kind(spec.type), std::nullopt};
    if (spec.default_value) fact.default_value = to_kernel_value(*spec.default_value);
    facts.settings.push_back(std::move(fact));
  }
  return facts;
}

std::vector<std::string> validate_or_throw(const Graph& graph, const OpCatalog& catalog,
                                           const Model& model) {
  Diagnostics diag = validate_against_model(graph, catalog, model);
  std::vector<std::string> warnings;
  std::string errors, first;
  for (const ValidationMessage& m : diag.messages()) {
    if (m.severity == Severity::Warning) {
      warnings.push_back(format_message(m));
    } else {
      if (first.empty()) first = format_message(m);
      errors += "    " + format_message(m) + "\n";
    }
  }
  if (!diag.ok()) {
    // The first error in the message itself: callers that print only what() still see it.
    throw input_error("graph '" + graph.origin + "' does not validate against model '" +
                      model.origin() + "' (" + std::to_string(diag.error_count()) +
                      " errors; the first: " + first + ")")
        .with_context(errors);
  }
  return warnings;
}

}  // namespace oi::exec
