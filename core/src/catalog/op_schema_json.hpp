// Internal: JSON -> OpSchema for the catalog document and for plugin-supplied op entries.
#pragma once

#include <boost/json/value.hpp>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "openinfer/op_catalog.hpp"

namespace oi::catalog_json {

using SharedSettings = std::map<std::string, SettingSpec, std::less<>>;

struct CatalogDocument {
  SharedSettings settings;
  std::vector<OpSchema> ops;  // in document order, shape_rule empty where the JSON has none
};

CatalogDocument parse_document(std::string_view text, std::string_view origin);
SettingSpec parse_setting(std::string name, const boost::json::value& v, std::string_view where);
OpSchema parse_op(std::string name, const boost::json::value& v, const SharedSettings& shared,
                  std::string_view origin);
OpSchema parse_op_text(std::string_view name, std::string_view json_text,
                       const SharedSettings& shared);

}  // namespace oi::catalog_json
