// The validator's symbol table and shared helpers.
#include "graph_index.hpp"

#include <algorithm>

namespace oi::validation {

GraphIndex::GraphIndex(const Graph& g, const OpCatalog& c, Diagnostics& d)
    : graph(g), catalog(c), diag(d) {
  for (const auto& decl : g.decls)
    add_symbol(Symbol{decl.name, decl.dtype, &decl.dims, decl.memory, &decl, nullptr, decl.loc});
  for (const auto& block : g.blocks) {
    if (!blocks_.emplace(block.name, &block).second)
      diag.error(block.loc, "duplicate block '" + block.name + "' (first defined at " +
                                line_col(blocks_[block.name]->loc) + ")");
    for_each_node(block.nodes, [&](const Node& n, size_t) {
      if (n.kind == NodeKind::Assign) {
        add_symbol(Symbol{n.var, n.dtype, &n.dims, std::nullopt, nullptr, &n, n.loc});
      } else if (n.kind == NodeKind::Loop) {
        loops_by_index_.emplace(n.var, &n);
      }
    });
  }
}

void GraphIndex::add_symbol(Symbol s) {
  auto it = symbols_.find(s.name);
  if (it != symbols_.end()) {
    diag.error(s.loc, "duplicate variable '" + s.name + "' (first declared at " +
                          line_col(it->second.loc) + ")");
    return;
  }
  std::string name = s.name;
  symbols_.emplace(std::move(name), std::move(s));
}

const Symbol* GraphIndex::symbol(std::string_view name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? nullptr : &it->second;
}

const Block* GraphIndex::block(std::string_view name) const {
  auto it = blocks_.find(name);
  return it == blocks_.end() ? nullptr : it->second;
}

bool GraphIndex::is_consumer(const Block& b) const {
  return b.name != "entry" && !b.nodes.empty() && b.nodes.front().kind == NodeKind::Await;
}

const Node* GraphIndex::any_loop_with_index(std::string_view name) const {
  auto it = loops_by_index_.find(name);
  return it == loops_by_index_.end() ? nullptr : it->second;
}

bool in_loop_scope(std::string_view name, const LoopStack& loops) {
  return std::any_of(loops.begin(), loops.end(), [&](const Node* l) { return l->var == name; });
}

std::string describe(const Node& n) {
  if (n.kind == NodeKind::Op) return "op '" + n.op + "'";
  if (n.kind == NodeKind::Loop) return "loop '" + n.loop_name + "'";
  return std::string(node_keyword(n));
}

std::string line_col(const SourceLocation& loc) {
  return std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

namespace {

void add(const GraphIndex& index, std::vector<VarAccess>& out, const std::string& name, bool write,
         const SourceLocation& loc) {
  if (index.symbol(name)) out.push_back({name, write, loc});
}

void add_ref(const GraphIndex& index, std::vector<VarAccess>& out, const Ref& r, bool write,
             const SourceLocation& loc) {
  add(index, out, r.name, write, loc);
  for (const auto& i : r.indices)
    if (!i.is_literal()) add(index, out, i.name, false, loc);
}

void add_access(const GraphIndex& index, std::vector<VarAccess>& out, const Access& a, bool write,
                const SourceLocation& loc) {
  add(index, out, a.name, write, loc);
  for (const auto& s : a.slots) {
    for (const Index* i : {&s.index, s.start ? &*s.start : nullptr, s.end ? &*s.end : nullptr})
      if (i && !i->is_literal()) add(index, out, i->name, false, loc);
  }
}

}  // namespace

void collect_accesses(const GraphIndex& index, const Node& n, std::vector<VarAccess>& out,
                      std::set<std::string>* visited) {
  const auto& loc = n.loc;
  switch (n.kind) {
    case NodeKind::Op:
      for (const auto& in : n.inputs) add_ref(index, out, in, false, loc);
      for (const auto& s : n.settings)
        if (s.value.kind == Value::Kind::Ident) add(index, out, s.value.text, false, loc);
      add_access(index, out, n.output, true, loc);
      break;
    case NodeKind::Transfer:
      for (const auto& in : n.inputs) add_ref(index, out, in, false, loc);
      add_access(index, out, n.output, true, loc);
      break;
    case NodeKind::CacheRead:
      add_access(index, out, n.target, false, loc);
      add_access(index, out, n.output, true, loc);
      break;
    case NodeKind::CacheWrite:
      for (const auto& in : n.inputs) add_ref(index, out, in, false, loc);
      add_access(index, out, n.target, true, loc);
      break;
    case NodeKind::CacheIncrement:
    case NodeKind::CacheDecrement:
      add(index, out, n.var, false, loc);
      add(index, out, n.var, true, loc);
      break;
    case NodeKind::CacheReset:
      add_access(index, out, n.target, true, loc);
      break;
    case NodeKind::Loop:
      for (const Bound* b : {&n.start, &n.end})
        if (b->is_name()) add(index, out, b->name, false, loc);
      for (const auto& child : n.body) collect_accesses(index, child, out, visited);
      break;
    case NodeKind::Branch: {
      if (!n.cond.empty()) add(index, out, n.cond, false, loc);
      std::set<std::string> local;
      if (!visited) visited = &local;
      for (const auto* target : {&n.then_block, &n.else_block}) {
        const Block* b = target->empty() ? nullptr : index.block(*target);
        if (!b || !visited->insert(b->name).second) continue;  // cycles are reported elsewhere
        for (const auto& child : b->nodes) collect_accesses(index, child, out, visited);
      }
      break;
    }
    case NodeKind::Return:
      for (const auto& name : n.names) add(index, out, name, false, loc);
      break;
    default:
      break;
  }
}

}  // namespace oi::validation
