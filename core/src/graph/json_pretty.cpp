#include "json_pretty.hpp"

#include <boost/json/serialize.hpp>

namespace oi::detail {

namespace {

bool is_scalar(const boost::json::value& value) {
  return !value.is_object() && !value.is_array();
}

void newline(std::string& out, size_t indent) {
  out += '\n';
  out.append(indent, ' ');
}

}  // namespace

void append_pretty_json(std::string& out, const boost::json::value& value, size_t indent) {
  if (value.is_object()) {
    const boost::json::object& object = value.get_object();
    if (object.empty()) {
      out += "{}";
      return;
    }
    out += '{';
    bool first = true;
    for (const auto& [key, member] : object) {
      if (!first) out += ',';
      first = false;
      newline(out, indent + 2);
      out += boost::json::serialize(boost::json::value(key));
      out += ": ";
      append_pretty_json(out, member, indent + 2);
    }
    newline(out, indent);
    out += '}';
  } else if (value.is_array()) {
    const boost::json::array& array = value.get_array();
    bool all_scalars = true;
    for (const boost::json::value& element : array) all_scalars = all_scalars && is_scalar(element);
    if (all_scalars) {
      out += '[';
      for (size_t i = 0; i < array.size(); ++i) {
        if (i > 0) out += ", ";
        out += boost::json::serialize(array[i]);
      }
      out += ']';
      return;
    }
    out += '[';
    for (size_t i = 0; i < array.size(); ++i) {
      if (i > 0) out += ',';
      newline(out, indent + 2);
      append_pretty_json(out, array[i], indent + 2);
    }
    newline(out, indent);
    out += ']';
  } else {
    out += boost::json::serialize(value);
  }
}

}  // namespace oi::detail
