// Extending the builtin op catalog with the op schemas of kernels plugins.
#include "openinfer/plugin_catalog.hpp"

#include <boost/json.hpp>

#include "openinfer/error.hpp"

namespace oi {
namespace {

[[noreturn]] void fail(const PluginOpSchemas& s, const std::string& message) {
  throw input_error("plugin '" + s.plugin + "': bad op schema: " + message);
}

}  // namespace

OpCatalog catalog_with_schemas(const std::vector<PluginOpSchemas>& schemas) {
  OpCatalog catalog = OpCatalog::builtin();
  for (const PluginOpSchemas& s : schemas) {
    boost::system::error_code ec;
    const boost::json::value doc = boost::json::parse(s.json, ec);
    if (ec) fail(s, "op_schemas_json is not valid JSON: " + ec.message());
    if (!doc.is_object()) fail(s, "op_schemas_json must be a JSON object {op name: entry}");
    for (const auto& [name, entry] : doc.get_object()) {
      try {
        catalog.add_from_json(name, boost::json::serialize(entry));
      } catch (const Error& e) {
        // The catalog's message already names the op and the field; add whose schema it is.
        fail(s, e.what());
      }
    }
  }
  return catalog;
}

OpCatalog catalog_with_plugins(const PluginRegistry& registry) {
  return catalog_with_schemas(registry.op_schemas());
}

}  // namespace oi
