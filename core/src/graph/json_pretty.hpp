// Deterministic pretty printing of a boost::json::value: two-space indent, keys in insertion
// order, arrays of scalars on one line.
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace oi::detail {

void append_pretty_json(std::string& out, const boost::json::value& value, size_t indent = 0);

}  // namespace oi::detail
