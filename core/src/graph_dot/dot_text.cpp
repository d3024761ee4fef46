// Escaping, colours and DSL text shared by the picture writers.
#include "dot_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace oi::dot {

std::string dot_quote(std::string_view text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    if (c == '\n') {
      s += "\\n";
      continue;
    }
    s += c;
  }
  return s + "\"";
}

std::string html(std::string_view text) {
  std::string s;
  for (char c : text) {
    switch (c) {
      case '&':
        s += "&amp;";
        break;
      case '<':
        s += "&lt;";
        break;
      case '>':
        s += "&gt;";
        break;
      case '"':
        s += "&quot;";
        break;
      default:
        s += c;
    }
  }
  return s;
}

KindColours memory_colours(MemoryKind kind) {
  // Dark ink readable on white, light fill readable under black text; one hue per kind.
  static constexpr std::array<KindColours, 4> kColours{{
      {"#1b7837", "#d9f0d3"},  // dynamic: green
      {"#b35806", "#fee0b6"},  // volatile: orange
      {"#2166ac", "#d1e5f0"},  // constant: blue
      {"#762a83", "#e7d4e8"},  // persistent: purple
  }};
  return kColours[static_cast<size_t>(kind)];
}

KindColours temporary_colours() {
  return {"#c51b7d", "#fde0ef"};  // magenta: no memory section
}

namespace {

std::string float_text(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  std::string s(buffer, result.ptr);
  // As the DSL writes a float: never a bare integer.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string value_text(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Int:
      return v.int_text();
    case Value::Kind::Float:
      return float_text(v.float_value);
    case Value::Kind::Bool:
      return v.bool_value ? "true" : "false";
    case Value::Kind::String: {
      std::string s = "\"";
      for (char c : v.text) {
        if (c == '"' || c == '\\') s += '\\';
        if (c == '\n') {
          s += "\\n";
          continue;
        }
        s += c;
      }
      return s + "\"";
    }
    case Value::Kind::DType:
      return std::string(dtype_name(v.dtype));
    case Value::Kind::Ident:
      return v.text;
    case Value::Kind::IntList: {
      std::string s = "[";
      for (size_t i = 0; i < v.ints.size(); ++i) s += (i ? ", " : "") + std::to_string(v.ints[i]);
      return s + "]";
    }
  }
  return {};
}

std::string bound_text(const Bound& b) {
  return b.is_name() ? b.name : std::to_string(b.value);
}

std::string index_text(const Index& i) {
  if (i.is_literal()) return std::to_string(i.offset);
  if (i.offset == 0) return i.name;
  return i.name + (i.offset > 0 ? "+" : "") + std::to_string(i.offset);
}

std::string slots_text(const Access& a) {
  if (!a.has_brackets) return {};
  std::string s = "[";
  for (size_t i = 0; i < a.slots.size(); ++i) {
    const Slot& slot = a.slots[i];
    if (i) s += ", ";
    if (slot.kind == Slot::Kind::Index) s += index_text(slot.index);
    if (slot.kind == Slot::Kind::Range) {
      if (slot.start) s += index_text(*slot.start);
      s += "..";
      if (slot.end) s += index_text(*slot.end);
    }
  }
  return s + "]";
}

std::string indices_text(const Ref& r) {
  if (r.indices.empty()) return {};
  std::string s = "[";
  for (size_t i = 0; i < r.indices.size(); ++i) s += (i ? ", " : "") + index_text(r.indices[i]);
  return s + "]";
}

std::string byte_text(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < std::size(units)) {
    v /= 1024.0;
    ++u;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f %s", v, units[u]);
  return buffer;
}

}  // namespace oi::dot
