// A setting written in the graph (`Value`) as the catalog reads it, for the shape rules.
#pragma once

#include <optional>

#include "openinfer/graph.hpp"
#include "openinfer/op_catalog.hpp"

namespace oi {

// Literals convert as written; a name converts only when it names a dtype (`to=f16` parsed
// as a name). Any other name (a constant, a loop index) has no value before run time.
inline std::optional<CatalogValue> catalog_value(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Int:
      return v.int_value;
    case Value::Kind::Float:
      return v.float_value;
    case Value::Kind::Bool:
      return v.bool_value;
    case Value::Kind::String:
      return v.text;
    case Value::Kind::DType:
      return v.dtype;
    case Value::Kind::IntList:
      return v.ints;
    case Value::Kind::Ident:
      if (auto t = dtype_from_name(v.text)) return *t;
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace oi
