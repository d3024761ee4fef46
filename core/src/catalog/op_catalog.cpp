// OpSchema queries, the OpCatalog container and the builtin catalog.
#include "openinfer/op_catalog.hpp"

#include <algorithm>

#include "op_schema_json.hpp"
#include "openinfer/error.hpp"

namespace oi {

std::string_view setting_type_name(SettingType t) {
  switch (t) {
    case SettingType::Int:
      return "int";
    case SettingType::Number:
      return "number";
    case SettingType::Bool:
      return "bool";
    case SettingType::String:
      return "string";
    case SettingType::DType:
      return "dtype";
    case SettingType::IntList:
      return "int_list";
  }
  return "?";
}

uint32_t OpSchema::min_inputs() const {
  uint32_t n = 0;
  for (const auto& in : inputs) {
    if (in.variadic)
      n += in.variadic->min;
    else if (!in.optional)
      ++n;
  }
  return n;
}

uint32_t OpSchema::max_inputs() const {
  uint32_t n = 0;
  for (const auto& in : inputs) n += in.variadic ? in.variadic->max : 1;
  return n;
}

const InputSpec* OpSchema::input_at(uint32_t index) const {
  uint32_t first = 0;
  for (const auto& in : inputs) {
    uint32_t count = in.variadic ? in.variadic->max : 1;
    if (index < first + count) return &in;
    first += count;
  }
  return nullptr;
}

const SettingSpec* OpSchema::find_setting(std::string_view name) const {
  for (const auto& s : settings) {
    if (s.name == name) return &s;
    if (std::find(s.aliases.begin(), s.aliases.end(), name) != s.aliases.end()) return &s;
  }
  return nullptr;
}

bool OpSchema::supports(DType t) const {
  return std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end();
}

bool OpSchema::allows_accumulate(DType input, DType acc) const {
  auto it = accumulate.find(input);
  return it != accumulate.end() &&
         std::find(it->second.begin(), it->second.end(), acc) != it->second.end();
}

const OpSchema* OpCatalog::find(std::string_view name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

void OpCatalog::add(OpSchema schema) {
  if (schema.name.empty()) throw input_error("an op schema needs a name");
  if (ops_.count(schema.name))
    throw input_error("op '" + schema.name + "' is already in the catalog");
  if (schema.shape_rule.empty()) schema.shape_rule = "broadcast";
  if (!ShapeRuleRegistry::global().find(schema.shape_rule))
    throw input_error("op '" + schema.name + "' names unknown output-shape rule '" +
                      schema.shape_rule + "'");
  std::string name = schema.name;
  ops_.emplace(std::move(name), std::move(schema));
}

void OpCatalog::add_from_json(std::string_view name, std::string_view json_text) {
  add(catalog_json::parse_op_text(name, json_text, shared_settings_));
}

std::vector<std::string> OpCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& [name, op] : ops_) out.push_back(name);
  return out;
}

namespace {

// What op_catalog.json does not say but ops.md does: the output-shape rule of reductions and
// matmul, and filter's condition input, which may be bool whatever the data dtype is.
void refine_builtin(OpSchema& op) {
  if (op.shape_rule.empty()) {
    static const std::map<std::string, std::string, std::less<>> kRules = {
        {"sum_axis", "reduce_axes"},       {"prod_axis", "reduce_axes"},
        {"mean_axis", "reduce_axes"},      {"max_axis", "reduce_axes"},
        {"min_axis", "reduce_axes"},       {"argmax_axis", "argreduce_axis"},
        {"argmin_axis", "argreduce_axis"}, {"matmul", "matmul"},
    };
    auto it = kRules.find(op.name);
    if (it != kRules.end()) op.shape_rule = it->second;
  }
  if (op.name == "filter" && op.inputs.size() == 3) {
    op.inputs[2].name = "cond";
    op.inputs[2].dtype_rule.dtypes = {DType::boolean};
  }
}

}  // namespace

OpCatalog OpCatalog::from_json_text(std::string_view text, std::string_view origin) {
  auto doc = catalog_json::parse_document(text, origin);
  OpCatalog catalog;
  catalog.shared_settings_ = std::move(doc.settings);
  for (auto& op : doc.ops) catalog.add(std::move(op));
  return catalog;
}

const OpCatalog& OpCatalog::builtin() {
  static const OpCatalog catalog = [] {
    auto doc = catalog_json::parse_document(builtin_catalog_json(), "builtin op_catalog.json");
    OpCatalog c;
    c.shared_settings_ = std::move(doc.settings);
    for (auto& op : doc.ops) {
      refine_builtin(op);
      c.add(std::move(op));
    }
    return c;
  }();
  return catalog;
}

void RuleSettings::put(std::string_view name, CatalogValue value) {
  const SettingSpec* spec = op_->find_setting(name);
  if (spec == nullptr) return;
  if (spec->type == SettingType::Number)  // `alpha=1` is still a number
    if (const auto* i = std::get_if<int64_t>(&value)) value = static_cast<double>(*i);
  given_[spec->name] = std::move(value);
}

std::map<std::string, CatalogValue> RuleSettings::with_defaults() const {
  std::map<std::string, CatalogValue> all = given_;
  for (const SettingSpec& spec : op_->settings)
    if (spec.default_value && !all.count(spec.name)) all[spec.name] = *spec.default_value;
  return all;
}

}  // namespace oi
