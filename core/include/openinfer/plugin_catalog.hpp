// The op catalog a run or a check uses: the builtin ops plus the op schemas that kernels
// plugins ship (docs/plugin-abi.md "Shipping a new op").
//
//   auto registry = oi::PluginRegistry::discover(oi::plugin_search_path(dirs));
//   oi::OpCatalog catalog = oi::catalog_with_plugins(registry);   // throws on a bad schema
//   oi::validate_graph(graph, catalog);
#pragma once

#include <vector>

#include "openinfer/op_catalog.hpp"
#include "openinfer/plugin_host.hpp"

namespace oi {

// OpCatalog::builtin() plus every op of every loaded plugin's op_schemas_json, in load order.
// Throws oi::Error (input, exit 1) naming the plugin and the op when its schema text is not a
// JSON object of op entries, an entry is malformed, or the op is already in the catalog (a
// builtin op or one an earlier plugin added).
OpCatalog catalog_with_plugins(const PluginRegistry& registry);

// The same over schema texts already collected (what catalog_with_plugins reads from the
// registry); exposed so the rules can be tested without building plugin libraries.
OpCatalog catalog_with_schemas(const std::vector<PluginOpSchemas>& schemas);

}  // namespace oi
