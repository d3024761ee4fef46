// The op catalog as data: one OpSchema per op (inputs, settings, dtype and shape rules),
// loaded from op_catalog.json (embedded at build time) and extensible by plugins, which may
// add ops from JSON text and register their own output-shape rules by name.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "openinfer/dtype.hpp"

namespace oi {

using Dims = std::vector<uint64_t>;

// A resolved setting value. Numbers written with a fraction (or inf) are doubles, whole
// numbers int64; `to=f16` is a DType; `axes=[0, -1]` an int list.
using CatalogValue = std::variant<bool, int64_t, double, std::string, DType, std::vector<int64_t>>;

enum class SettingType { Int, Number, Bool, String, DType, IntList };
std::string_view setting_type_name(SettingType t);

struct SettingSpec {
  std::string name;
  SettingType type = SettingType::Number;
  std::optional<CatalogValue> default_value;  // absent: the setting has no default
  bool required = false;
  std::vector<std::string> allowed_values;  // String settings with a fixed set of words
  std::vector<std::string> aliases;         // other accepted names (`negative_slope`)
  std::string doc;
};

// Which dtypes an input accepts.
struct InputDtypeRule {
  enum class Kind {
    OpDtypes,           // any dtype of the op's `dtypes` list
    SameAsInput0,       // input 0's dtype, or one of `also`
    Explicit,           // exactly one of `dtypes` (gather's indices: i32, i64)
    SameAsInput0OrAcc,  // input 0's dtype, or the acc= dtype when given (conv's bias)
  };
  Kind kind = Kind::OpDtypes;
  std::vector<DType> dtypes;  // Explicit: the set; SameAsInput0: extra alternatives (`also`)
};

struct InputSpec {
  std::string name;
  bool optional = false;  // trailing optional input (layer_norm's bias)
  // A variadic input stands for min..max consecutive inputs (concat: 1..16).
  struct Count {
    uint32_t min = 1;
    uint32_t max = 1;
  };
  std::optional<Count> variadic;
  InputDtypeRule dtype_rule;
};

struct OutputDtypeRule {
  enum class Kind { Input0, Fixed, Setting, Input };
  Kind kind = Kind::Input0;
  DType fixed = DType::f32;  // Fixed
  uint32_t input = 0;        // Input: the dtype of this positional input (dequantize: scale)
  std::string setting;       // Setting: the dtype setting naming it (`to`)
};
// Note: `acc=DTYPE` always overrides the rule above; the output must then have DTYPE.

struct OpSchema {
  std::string name;
  std::string category;
  std::vector<InputSpec> inputs;
  std::vector<SettingSpec> settings;
  OutputDtypeRule output_dtype;
  std::string shape_rule;  // a name in ShapeRuleRegistry ("broadcast", "reduce_axes", ...)
  bool broadcast = false;  // numpy broadcasting between inputs of the shape rule
  bool inplace = false;
  std::vector<DType> dtypes;                       // supported dtypes of input 0
  std::map<DType, std::vector<DType>> accumulate;  // input dtype -> allowed acc= dtypes
  std::vector<DType> to_dtypes;                    // cast: the allowed `to` dtypes

  // Fewest and most positional inputs the op takes.
  uint32_t min_inputs() const;
  uint32_t max_inputs() const;
  // The spec of positional input `index`, expanding variadic inputs; nullptr past the end.
  const InputSpec* input_at(uint32_t index) const;
  // The setting named `name` or one of its aliases; nullptr if unknown.
  const SettingSpec* find_setting(std::string_view name) const;
  bool supports(DType t) const;
  bool allows_accumulate(DType input, DType acc) const;
};

// --- Output-shape rules --------------------------------------------------------------------

struct ShapeRuleContext {
  const OpSchema& op;
  std::vector<Dims> inputs;                      // resolved input shapes
  Dims declared_output;                          // the output variable's shape
  std::map<std::string, CatalogValue> settings;  // given settings, defaults filled in
};

// The settings of one op call as ShapeRuleContext::settings holds them. `put` records a
// given setting under the schema's own name (aliases resolved), a whole number given to a
// Number setting as a double; it skips a name the op does not know. `with_defaults` adds the
// defaults the op declares for settings not given. One reading for the validator, the planner
// and the simulator, so an op's result shape is the same wherever it is computed.
class RuleSettings {
 public:
  explicit RuleSettings(const OpSchema& op) : op_(&op) {}
  void put(std::string_view name, CatalogValue value);
  std::map<std::string, CatalogValue> with_defaults() const;

 private:
  const OpSchema* op_;
  std::map<std::string, CatalogValue> given_;
};

// Computes the shape the op's output must have, or throws ShapeRuleError naming the problem
// (e.g. "shapes [2, 3] and [4] do not broadcast").
using ShapeRuleFn = std::function<Dims(const ShapeRuleContext&)>;

class ShapeRuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Named shape rules. The builtins: "broadcast" (elementwise; equal shapes unless the op
// broadcasts), "same_as_input0", "scalar", "reduce_axes", "argreduce_axis", "matmul",
// "declared" (the output's declared shape), "same_as_input0_axis" (softmax, iota: `axis` in
// range), "reshape" (declared, same element count), "transpose", "concat", "gather".
// Plugins add their own.
class ShapeRuleRegistry {
 public:
  static ShapeRuleRegistry& global();
  // Throws oi::Error when the name is taken.
  void add(std::string name, ShapeRuleFn fn);
  const ShapeRuleFn* find(std::string_view name) const;

 private:
  ShapeRuleRegistry();
  std::map<std::string, ShapeRuleFn, std::less<>> rules_;
};

std::string format_dims(const Dims& d);  // "[2, 3]"

// --- The catalog ---------------------------------------------------------------------------

class OpCatalog {
 public:
  OpCatalog() = default;
  // The 47 ops of op_catalog.json, parsed on first use. Shared and immutable: copy it to add.
  static const OpCatalog& builtin();

  // Parses a whole catalog document ({"format": "openinfer.op_catalog", "settings", "ops"}).
  // Throws oi::Error (Input) naming the op and field on malformed content.
  static OpCatalog from_json_text(std::string_view text, std::string_view origin);

  const OpSchema* find(std::string_view name) const;
  // Throws oi::Error when an op of that name exists, or its shape rule is unknown.
  void add(OpSchema schema);
  // Parses one op object (the format of op_catalog.json's "ops" entries, extended: `inputs`
  // may list objects, `settings` may hold full setting objects, `output_shape` names a rule)
  // and adds it. Shared setting names resolve against this catalog's settings table.
  void add_from_json(std::string_view name, std::string_view json_text);

  std::vector<std::string> names() const;  // sorted
  size_t size() const { return ops_.size(); }
  // The shared settings table (`acc`, `alpha`, ...) that op entries refer to by name.
  const std::map<std::string, SettingSpec, std::less<>>& shared_settings() const {
    return shared_settings_;
  }

 private:
  std::map<std::string, OpSchema, std::less<>> ops_;
  std::map<std::string, SettingSpec, std::less<>> shared_settings_;
};

// The catalog JSON text compiled into the library (core/data/op_catalog.json).
std::string_view builtin_catalog_json();

}  // namespace oi
