// Internal to the picture writers: escaping for DOT and HTML-like labels, the colours of memory
// kinds, and the DSL text of values, bounds and accesses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "openinfer/graph.hpp"

namespace oi::dot {

// A "quoted" DOT string (backslash and quote escaped).
std::string dot_quote(std::string_view text);
// Text inside an HTML-like label or an SVG element: & < > " escaped.
std::string html(std::string_view text);

// The colours of a variable's memory kind: `ink` for its name in labels, `fill` for table rows.
struct KindColours {
  const char* ink;
  const char* fill;
};
KindColours memory_colours(MemoryKind kind);
KindColours temporary_colours();  // `assign` temporaries

// DSL text: "0.5", "inf", "f16", "[0, 1]", "\"tanh\"", a name.
std::string value_text(const Value& v);
std::string bound_text(const Bound& b);
std::string index_text(const Index& i);
// The brackets of an access or ref ("[l, 0..-3]"), empty without brackets.
std::string slots_text(const Access& a);
std::string indices_text(const Ref& r);

// "12 B", "4.5 KiB", "1.2 MiB" (one decimal above 1 KiB).
std::string byte_text(uint64_t bytes);

}  // namespace oi::dot
