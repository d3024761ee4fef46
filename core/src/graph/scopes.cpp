// Scope paths and inherited hints (dsl.md "Scopes").
#include "openinfer/graph.hpp"

namespace oi {
namespace {

bool valid(const Block& block, int32_t scope) {
  return scope >= 0 && static_cast<size_t>(scope) < block.scopes.size();
}

}  // namespace

std::string scope_path(const Block& block, int32_t scope) {
  std::string path;
  // Parents come earlier in the list, so the walk ends; the bound guards malformed input.
  for (size_t guard = 0; valid(block, scope) && guard <= block.scopes.size(); ++guard) {
    const Scope& s = block.scopes[static_cast<size_t>(scope)];
    path = path.empty() ? s.name : s.name + "." + path;
    scope = s.parent < scope ? s.parent : -1;
  }
  return path;
}

bool scope_within(const Block& block, int32_t inner, int32_t outer) {
  if (outer < 0) return true;
  for (size_t guard = 0; valid(block, inner) && guard <= block.scopes.size(); ++guard) {
    if (inner == outer) return true;
    const int32_t parent = block.scopes[static_cast<size_t>(inner)].parent;
    inner = parent < inner ? parent : -1;
  }
  return false;
}

ScopeHints scope_hints(const Block& block, int32_t scope) {
  // Outermost first, so that inner scopes override.
  std::vector<const Scope*> chain;
  for (size_t guard = 0; valid(block, scope) && guard <= block.scopes.size(); ++guard) {
    const Scope& s = block.scopes[static_cast<size_t>(scope)];
    chain.insert(chain.begin(), &s);
    scope = s.parent < scope ? s.parent : -1;
  }
  ScopeHints hints;
  for (const Scope* s : chain) {
    for (const Setting& h : s->hints) {
      const Value& v = h.value;
      if (h.name == "fuse" && v.kind == Value::Kind::Bool) hints.fuse = v.bool_value;
      if (h.name == "no_reorder" && v.kind == Value::Kind::Bool) hints.no_reorder = v.bool_value;
      if (h.name == "placement" && v.kind == Value::Kind::String) hints.placement = v.text;
    }
  }
  return hints;
}

bool is_scope_hint(std::string_view name) {
  return name == "fuse" || name == "no_reorder" || name == "placement";
}

}  // namespace oi
