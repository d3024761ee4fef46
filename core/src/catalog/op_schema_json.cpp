// Parsing op_catalog.json documents and single op entries into OpSchema values.
#include "op_schema_json.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <limits>

#include "openinfer/error.hpp"

namespace oi::catalog_json {
namespace json = boost::json;

namespace {

[[noreturn]] void fail(std::string_view where, const std::string& message) {
  throw input_error(std::string(where) + ": " + message);
}

DType parse_dtype(const json::value& v, std::string_view where) {
  if (!v.is_string()) fail(where, "a dtype must be a string");
  auto t = dtype_from_name(std::string_view(v.get_string()));
  if (!t) fail(where, "unknown dtype '" + std::string(v.get_string()) + "'");
  return *t;
}

std::vector<DType> parse_dtype_list(const json::value& v, std::string_view where) {
  if (!v.is_array()) fail(where, "expected an array of dtype names");
  std::vector<DType> out;
  for (const auto& e : v.get_array()) out.push_back(parse_dtype(e, where));
  return out;
}

std::vector<std::string> parse_string_list(const json::value& v, std::string_view where) {
  if (!v.is_array()) fail(where, "expected an array of strings");
  std::vector<std::string> out;
  for (const auto& e : v.get_array()) {
    if (!e.is_string()) fail(where, "expected an array of strings");
    out.emplace_back(e.get_string());
  }
  return out;
}

const json::object& as_object(const json::value& v, std::string_view where) {
  if (!v.is_object()) fail(where, "expected a JSON object");
  return v.get_object();
}

bool get_bool(const json::object& o, std::string_view key, bool fallback, std::string_view where) {
  const json::value* v = o.if_contains(key);
  if (!v) return fallback;
  if (!v->is_bool()) fail(where, "'" + std::string(key) + "' must be true or false");
  return v->get_bool();
}

std::string get_string(const json::object& o, std::string_view key, std::string_view where,
                       bool required) {
  const json::value* v = o.if_contains(key);
  if (!v) {
    if (required) fail(where, "missing '" + std::string(key) + "'");
    return {};
  }
  if (!v->is_string()) fail(where, "'" + std::string(key) + "' must be a string");
  return std::string(v->get_string());
}

std::optional<SettingType> setting_type_from_name(std::string_view s) {
  if (s == "int") return SettingType::Int;
  if (s == "number") return SettingType::Number;
  if (s == "bool") return SettingType::Bool;
  if (s == "string") return SettingType::String;
  if (s == "dtype") return SettingType::DType;
  if (s == "int_list") return SettingType::IntList;
  return std::nullopt;
}

// A default written in JSON, converted to the setting's type ("-inf"/"inf" for numbers).
CatalogValue parse_default(const json::value& v, SettingType type, std::string_view where) {
  switch (type) {
    case SettingType::Number:
      if (v.is_int64()) return static_cast<double>(v.get_int64());
      if (v.is_double()) return v.get_double();
      if (v.is_string() && v.get_string() == "inf") return std::numeric_limits<double>::infinity();
      if (v.is_string() && v.get_string() == "-inf")
        return -std::numeric_limits<double>::infinity();
      break;
    case SettingType::Int:
      if (v.is_int64()) return v.get_int64();
      break;
    case SettingType::Bool:
      if (v.is_bool()) return v.get_bool();
      break;
    case SettingType::String:
      if (v.is_string()) return std::string(v.get_string());
      break;
    case SettingType::DType:
      return parse_dtype(v, where);
    case SettingType::IntList:
      if (v.is_array()) {
        std::vector<int64_t> ints;
        for (const auto& e : v.get_array()) {
          if (!e.is_int64()) fail(where, "default must be a list of integers");
          ints.push_back(e.get_int64());
        }
        return ints;
      }
      break;
  }
  fail(where, "default does not have the setting's type " + std::string(setting_type_name(type)));
}

std::vector<InputSpec> default_inputs(int64_t count) {
  static const char* const kNames[] = {"a", "b", "c"};
  std::vector<InputSpec> inputs;
  for (int64_t i = 0; i < count; ++i) {
    InputSpec in;
    in.name = count == 1 ? "x" : (i < 3 ? kNames[i] : "in" + std::to_string(i));
    in.dtype_rule.kind =
        i == 0 ? InputDtypeRule::Kind::OpDtypes : InputDtypeRule::Kind::SameAsInput0;
    inputs.push_back(std::move(in));
  }
  return inputs;
}

InputSpec parse_input(const json::value& v, std::string_view where) {
  const auto& o = as_object(v, where);
  InputSpec in;
  in.name = get_string(o, "name", where, true);
  in.optional = get_bool(o, "optional", false, where);
  if (const auto* var = o.if_contains("variadic")) {
    const auto* arr = var->if_array();
    if (!arr || arr->size() != 2 || !(*arr)[0].is_int64() || !(*arr)[1].is_int64() ||
        (*arr)[0].get_int64() < 0 || (*arr)[1].get_int64() < (*arr)[0].get_int64() ||
        (*arr)[1].get_int64() > 1024)
      fail(where, "'variadic' must be [min, max] with 0 <= min <= max <= 1024");
    in.variadic = InputSpec::Count{static_cast<uint32_t>((*arr)[0].get_int64()),
                                   static_cast<uint32_t>((*arr)[1].get_int64())};
  }
  if (const auto* d = o.if_contains("dtypes")) {
    if (d->is_string() && d->get_string() == "op") {
      in.dtype_rule.kind = InputDtypeRule::Kind::OpDtypes;
    } else if (d->is_string() && d->get_string() == "input0") {
      in.dtype_rule.kind = InputDtypeRule::Kind::SameAsInput0;
    } else if (d->is_string() && d->get_string() == "input0_or_acc") {
      in.dtype_rule.kind = InputDtypeRule::Kind::SameAsInput0OrAcc;
    } else {
      in.dtype_rule.kind = InputDtypeRule::Kind::Explicit;
      in.dtype_rule.dtypes = parse_dtype_list(*d, where);
    }
  }
  if (const auto* also = o.if_contains("also")) {
    if (in.dtype_rule.kind != InputDtypeRule::Kind::SameAsInput0)
      fail(where, "'also' needs \"dtypes\": \"input0\"");
    in.dtype_rule.dtypes = parse_dtype_list(*also, where);
  }
  return in;
}

OutputDtypeRule parse_output_dtype(const std::string& s, const OpSchema& op,
                                   std::string_view where) {
  OutputDtypeRule rule;
  // "acc" is accepted as input0: an acc= setting overrides the output dtype of every op.
  if (s == "input0" || s == "acc") return rule;
  if (s.rfind("setting:", 0) == 0) {
    rule.kind = OutputDtypeRule::Kind::Setting;
    rule.setting = s.substr(8);
    const SettingSpec* spec = op.find_setting(rule.setting);
    if (!spec || spec->type != SettingType::DType)
      fail(where, "output_dtype '" + s + "' does not name a dtype setting of the op");
    return rule;
  }
  if (s.rfind("input", 0) == 0 && s.size() > 5 &&
      s.find_first_not_of("0123456789", 5) == std::string::npos) {
    rule.kind = OutputDtypeRule::Kind::Input;
    rule.input = static_cast<uint32_t>(std::stoul(s.substr(5)));
    if (rule.input >= op.max_inputs())
      fail(where, "output_dtype '" + s + "' names an input the op does not have");
    return rule;
  }
  auto t = dtype_from_name(s);
  if (!t)
    fail(where, "output_dtype '" + s + "' is neither input0, inputN, setting:NAME nor a dtype");
  rule.kind = OutputDtypeRule::Kind::Fixed;
  rule.fixed = *t;
  return rule;
}

SettingSpec typed_setting(const std::string& name, const json::value& type,
                          std::string_view where) {
  if (!type.is_string()) fail(where, "'setting_types' values must be type names");
  auto t = setting_type_from_name(std::string_view(type.get_string()));
  if (!t) fail(where, "unknown setting type '" + std::string(type.get_string()) + "'");
  SettingSpec spec;
  spec.name = name;
  spec.type = *t;
  return spec;
}

// Plugin schemas (docs/plugin-abi.md): `setting_defaults` {name: value} set or replace the
// defaults of the op's own copies of its settings; the shared table is left unchanged.
void apply_setting_defaults(const json::object& o, OpSchema& op, std::string_view where) {
  const json::value* defaults = o.if_contains("setting_defaults");
  if (!defaults) return;
  for (const auto& [key, value] : as_object(*defaults, where)) {
    const std::string name(key);
    auto it = std::find_if(op.settings.begin(), op.settings.end(),
                           [&](const SettingSpec& s) { return s.name == name; });
    if (it == op.settings.end())
      fail(where, "'setting_defaults' names '" + name + "', which is not in 'settings'");
    it->default_value = parse_default(value, it->type, where);
  }
}

// `min_inputs` / `max_inputs`: `inputs` lists the maximum; those past min_inputs are optional.
void apply_input_counts(const json::object& o, OpSchema& op, std::string_view where) {
  const json::value* min = o.if_contains("min_inputs");
  const json::value* max = o.if_contains("max_inputs");
  if (!min && !max) return;
  const auto count = static_cast<int64_t>(op.inputs.size());
  for (const auto& in : op.inputs)
    if (in.variadic) fail(where, "'min_inputs'/'max_inputs' cannot be used with variadic inputs");
  if (max && (!max->is_int64() || max->get_int64() != count))
    fail(where, "'max_inputs' must equal the number of 'inputs' (" + std::to_string(count) + ")");
  if (!min) return;
  if (!min->is_int64() || min->get_int64() < 0 || min->get_int64() > count)
    fail(where, "'min_inputs' must be between 0 and the number of 'inputs'");
  for (int64_t i = min->get_int64(); i < count; ++i) op.inputs[i].optional = true;
}

// `input_dtypes`: one entry per input position, a dtype list or "op" / "input0".
void apply_input_dtypes(const json::object& o, OpSchema& op, std::string_view where) {
  const json::value* v = o.if_contains("input_dtypes");
  if (!v) return;
  const auto* list = v->if_array();
  if (!list || list->size() != op.inputs.size())
    fail(where,
         "'input_dtypes' must hold one entry per input (" + std::to_string(op.inputs.size()) + ")");
  for (size_t i = 0; i < list->size(); ++i) {
    const json::value& d = (*list)[i];
    InputDtypeRule& rule = op.inputs[i].dtype_rule;
    rule.dtypes.clear();
    if (d.is_string() && d.get_string() == "op") {
      rule.kind = InputDtypeRule::Kind::OpDtypes;
    } else if (d.is_string() && d.get_string() == "input0") {
      rule.kind = InputDtypeRule::Kind::SameAsInput0;
    } else {
      rule.kind = InputDtypeRule::Kind::Explicit;
      rule.dtypes = parse_dtype_list(d, std::string(where) + " input_dtypes");
    }
  }
}

// The short rule names plugin schemas use, mapped onto ShapeRuleRegistry's names.
std::string shape_rule_name(std::string name) {
  if (name == "input0") return "same_as_input0";
  if (name == "reduce") return "reduce_axes";
  if (name == "argreduce") return "argreduce_axis";
  return name;
}

}  // namespace

SettingSpec parse_setting(std::string name, const json::value& v, std::string_view where) {
  const auto& o = as_object(v, where);
  SettingSpec s;
  s.name = std::move(name);
  auto type_name = get_string(o, "type", where, true);
  auto type = setting_type_from_name(type_name);
  if (!type) fail(where, "unknown setting type '" + type_name + "'");
  s.type = *type;
  if (const auto* d = o.if_contains("default")) s.default_value = parse_default(*d, s.type, where);
  s.required = get_bool(o, "required", false, where);
  if (const auto* vals = o.if_contains("values")) {
    if (s.type != SettingType::String) fail(where, "'values' is only for string settings");
    s.allowed_values = parse_string_list(*vals, where);
  }
  if (const auto* al = o.if_contains("aliases")) s.aliases = parse_string_list(*al, where);
  s.doc = get_string(o, "doc", where, false);
  return s;
}

OpSchema parse_op(std::string name, const json::value& v, const SharedSettings& shared,
                  std::string_view origin) {
  const std::string where = std::string(origin) + ": op '" + name + "'";
  const auto& o = as_object(v, where);
  OpSchema op;
  op.name = std::move(name);
  op.category = get_string(o, "category", where, true);

  const json::value* inputs = o.if_contains("inputs");
  if (!inputs) fail(where, "missing 'inputs'");
  if (inputs->is_int64()) {
    if (inputs->get_int64() < 0 || inputs->get_int64() > 64)
      fail(where, "'inputs' must be between 0 and 64");
    op.inputs = default_inputs(inputs->get_int64());
  } else if (inputs->is_array()) {
    for (const auto& in : inputs->get_array()) op.inputs.push_back(parse_input(in, where));
  } else {
    fail(where, "'inputs' must be a count or an array of input objects");
  }

  apply_input_counts(o, op, where);
  apply_input_dtypes(o, op, where);

  const json::object* types = nullptr;
  if (const auto* t = o.if_contains("setting_types")) types = &as_object(*t, where);
  if (const auto* settings = o.if_contains("settings")) {
    if (!settings->is_array()) fail(where, "'settings' must be an array");
    for (const auto& s : settings->get_array()) {
      if (s.is_string()) {
        const std::string sname(s.get_string());
        if (const json::value* type = types ? types->if_contains(sname) : nullptr) {
          op.settings.push_back(typed_setting(sname, *type, where));
          continue;
        }
        auto it = shared.find(sname);
        if (it == shared.end())
          fail(where, "setting '" + sname +
                          "' is not in the settings table (give its type in "
                          "'setting_types')");
        op.settings.push_back(it->second);
      } else {
        const auto& so = as_object(s, where);
        auto sname = get_string(so, "name", where, true);
        op.settings.push_back(parse_setting(sname, s, where + " setting '" + sname + "'"));
      }
    }
  }

  if (types) {
    for (const auto& [key, value] : *types)
      if (!op.find_setting(std::string_view(key)))
        fail(where, "'setting_types' names '" + std::string(key) + "', which is not in 'settings'");
  }
  apply_setting_defaults(o, op, where);

  op.output_dtype = parse_output_dtype(get_string(o, "output_dtype", where, true), op, where);
  op.shape_rule = shape_rule_name(get_string(o, "output_shape", where, false));
  op.broadcast = get_bool(o, "broadcast", false, where);
  op.inplace = get_bool(o, "inplace", false, where);
  const json::value* dtypes = o.if_contains("dtypes");
  if (!dtypes) fail(where, "missing 'dtypes'");
  op.dtypes = parse_dtype_list(*dtypes, where + " dtypes");
  if (const auto* acc = o.if_contains("accumulate")) {
    for (const auto& [key, targets] : as_object(*acc, where)) {
      auto from = dtype_from_name(std::string_view(key));
      if (!from) fail(where, "unknown dtype '" + std::string(key) + "' in 'accumulate'");
      op.accumulate[*from] = parse_dtype_list(targets, where + " accumulate");
    }
  }
  if (const auto* to = o.if_contains("to_dtypes")) op.to_dtypes = parse_dtype_list(*to, where);
  return op;
}

CatalogDocument parse_document(std::string_view text, std::string_view origin) {
  boost::system::error_code ec;
  json::value doc = json::parse(text, ec);
  if (ec) fail(origin, "not valid JSON: " + ec.message());
  const auto& root = as_object(doc, origin);
  if (get_string(root, "format", origin, true) != "openinfer.op_catalog")
    fail(origin, "'format' must be \"openinfer.op_catalog\"");
  CatalogDocument out;
  if (const auto* settings = root.if_contains("settings")) {
    for (const auto& [key, value] : as_object(*settings, origin)) {
      std::string name(key);
      out.settings.emplace(
          name, parse_setting(name, value, std::string(origin) + ": setting '" + name + "'"));
    }
  }
  const json::value* ops = root.if_contains("ops");
  if (!ops) fail(origin, "missing 'ops'");
  for (const auto& [key, value] : as_object(*ops, origin))
    out.ops.push_back(parse_op(std::string(key), value, out.settings, origin));
  return out;
}

OpSchema parse_op_text(std::string_view name, std::string_view json_text,
                       const SharedSettings& shared) {
  boost::system::error_code ec;
  json::value v = json::parse(json_text, ec);
  const std::string origin = "op '" + std::string(name) + "' schema";
  if (ec) fail(origin, "not valid JSON: " + ec.message());
  return parse_op(std::string(name), v, shared, origin);
}

}  // namespace oi::catalog_json
