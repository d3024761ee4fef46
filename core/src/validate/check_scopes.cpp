// Level 1 checks of scopes (dsl.md "Scopes"): their hints, the nodes they may hold, and (for
// graphs read from JSON or built in code) that each scope is one contiguous run of nodes.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "graph_index.hpp"

namespace oi::validation {
namespace {

void check_hints(const Scope& scope, Diagnostics& diag) {
  std::set<std::string> seen;
  for (const Setting& h : scope.hints) {
    const SourceLocation& loc = h.loc.line ? h.loc : scope.loc;
    if (!is_scope_hint(h.name)) {
      diag.error(loc,
                 "unknown scope hint '" + h.name + "' (hints are fuse, no_reorder and placement)");
      continue;
    }
    if (!seen.insert(h.name).second) {
      diag.error(loc, "scope hint '" + h.name + "' is given twice");
      continue;
    }
    const bool is_bool = h.value.kind == Value::Kind::Bool;
    const bool is_string = h.value.kind == Value::Kind::String;
    if ((h.name == "fuse" || h.name == "no_reorder") && !is_bool) {
      diag.error(loc, "scope hint '" + h.name + "' takes true or false, got " +
                          std::string(value_kind_name(h.value.kind)));
    } else if (h.name == "placement" && (!is_string || h.value.text.empty())) {
      diag.error(loc, "scope hint 'placement' takes a backend name in quotes (placement=\"cpu\")");
    }
  }
}

bool forbidden_in_scope(NodeKind kind) {
  return kind == NodeKind::Return || kind == NodeKind::Yield || kind == NodeKind::Await ||
         kind == NodeKind::Branch;
}

// The scopes of `scope`'s chain strictly inside `context`, outermost first.
std::vector<int32_t> chain_inside(const Block& block, int32_t scope, int32_t context) {
  std::vector<int32_t> chain;
  while (scope >= 0 && scope != context) {
    chain.insert(chain.begin(), scope);
    scope = block.scopes[static_cast<size_t>(scope)].parent;
  }
  return chain;
}

class ScopeChecker {
 public:
  ScopeChecker(const Block& block, Diagnostics& diag) : block_(block), diag_(diag) {}

  // One node list (the block's, or a loop body whose loop is in scope `context`).
  void check_list(const std::vector<Node>& nodes, int32_t context) {
    std::set<int32_t> closed;
    std::vector<int32_t> previous;
    for (const Node& n : nodes) {
      const bool known = n.scope >= -1 && n.scope < static_cast<int32_t>(block_.scopes.size());
      if (!known) {
        diag_.error(n.loc, describe(n) + " names scope " + std::to_string(n.scope) +
                               ", which block '" + block_.name + "' does not have");
        continue;
      }
      if (n.scope >= 0 && forbidden_in_scope(n.kind)) {
        diag_.error(n.loc, describe(n) + " inside a scope: scopes hold no return, yield, await " +
                               "or branch");
      }
      if (!scope_within(block_, n.scope, context)) {
        diag_.error(n.loc, describe(n) + " is in scope '" + scope_path(block_, n.scope) +
                               "' but its loop is not");
        continue;
      }
      std::vector<int32_t> chain = chain_inside(block_, n.scope, context);
      for (int32_t s : previous)
        if (std::find(chain.begin(), chain.end(), s) == chain.end()) closed.insert(s);
      for (int32_t s : chain) {
        auto [it, fresh] = home_.emplace(s, &nodes);
        if (closed.count(s) || it->second != &nodes) {
          diag_.error(n.loc, describe(n) + " is in scope '" + scope_path(block_, s) +
                                 "', whose nodes must be one run in one node list");
          break;
        }
      }
      previous = std::move(chain);
      if (n.kind == NodeKind::Loop) check_list(n.body, n.scope);
    }
  }

 private:
  const Block& block_;
  Diagnostics& diag_;
  std::map<int32_t, const std::vector<Node>*> home_;  // scope -> the list its run is in
};

}  // namespace

void check_scopes(const GraphIndex& index) {
  for (const Block& block : index.graph.blocks) {
    for (const Scope& scope : block.scopes) check_hints(scope, index.diag);
    ScopeChecker(block, index.diag).check_list(block.nodes, -1);
  }
}

}  // namespace oi::validation

namespace oi::validation {
namespace {

using LocKey = std::tuple<std::string, uint32_t, uint32_t>;

LocKey key_of(const SourceLocation& loc) {
  return {loc.origin, loc.line, loc.col};
}

}  // namespace

void name_scopes(const Graph& graph, Diagnostics& diag) {
  std::map<LocKey, std::string> where;  // a place inside a scope -> the scope's path
  auto add = [&](const SourceLocation& loc, const std::string& path) {
    if (loc.line > 0) where.emplace(key_of(loc), path);
  };
  for (const Block& block : graph.blocks) {
    for (size_t i = 0; i < block.scopes.size(); ++i) {
      const std::string path = scope_path(block, static_cast<int32_t>(i));
      add(block.scopes[i].loc, path);
      for (const Setting& h : block.scopes[i].hints) add(h.loc, path);
    }
    for_each_node(block.nodes, [&](const Node& n, size_t) {
      if (n.scope < 0 || n.scope >= static_cast<int32_t>(block.scopes.size())) return;
      const std::string path = scope_path(block, n.scope);
      add(n.loc, path);
      for (const Ref& r : n.inputs) add(r.loc, path);
      for (const Setting& s : n.settings) add(s.loc, path);
      add(n.output.loc, path);
      add(n.target.loc, path);
    });
  }
  if (where.empty()) return;
  for (ValidationMessage& m : diag.messages()) {
    auto it = where.find(key_of(m.loc));
    if (it != where.end()) m.message += " (in scope " + it->second + ")";
  }
}

}  // namespace oi::validation
