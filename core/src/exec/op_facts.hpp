// What the executor needs from the op catalog and the validator, behind a header that includes
// neither op_catalog.hpp nor validate.hpp (op_catalog.hpp's SettingValue differs from
// plugin_host.hpp's, so one file cannot include both).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "openinfer/dtype.hpp"

namespace oi {
class Graph;
class Model;
class OpCatalog;
}  // namespace oi

namespace oi::exec {

// The same type as plugin_host.hpp's oi::SettingValue.
using KernelValue = std::variant<int64_t, double, bool, std::string, DType, std::vector<int64_t>>;

enum class SettingKind { Int, Number, Bool, String, DType, IntList };

struct SettingFact {
  std::string name;  // canonical name
  std::vector<std::string> aliases;
  SettingKind kind = SettingKind::Number;
  std::optional<KernelValue> default_value;
};

struct OpFacts {
  bool inplace = false;
  std::vector<SettingFact> settings;
};

const OpCatalog& catalog_or_builtin(const OpCatalog* catalog);
// nullopt when the catalog has no such op.
std::optional<OpFacts> op_facts(const OpCatalog& catalog, std::string_view op);

// Runs both validation levels. Throws oi::Error (Input) with every error message as context;
// returns the formatted warnings.
std::vector<std::string> validate_or_throw(const Graph& graph, const OpCatalog& catalog,
                                           const Model& model);

}  // namespace oi::exec
