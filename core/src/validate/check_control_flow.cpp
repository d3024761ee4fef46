// Level 1 checks of blocks: entry, branches and their cycles, terminators, assign placement, dep.
#include <functional>

#include "graph_index.hpp"

namespace oi::validation {
namespace {

// The name a `dep` uses for a node: the op's name, or the statement keyword.
std::string dep_name(const Node& n) {
  switch (n.kind) {
    case NodeKind::Return:
    case NodeKind::Dep:
    case NodeKind::Yield:
    case NodeKind::Await:
      return "";
    default:
      return std::string(node_keyword(n));
  }
}

void check_dep(const std::vector<Node>& nodes, size_t pos, Diagnostics& diag) {
  const Node& dep = nodes[pos];
  bool before_found = false, after_found = false;
  for (size_t i = 0; i < pos; ++i) after_found |= dep_name(nodes[i]) == dep.dep_after;
  for (size_t i = pos + 1; i < nodes.size(); ++i)
    before_found |= dep_name(nodes[i]) == dep.dep_before;
  if (!after_found)
    diag.error(dep.loc, "dep after(" + dep.dep_after + "): no earlier node '" + dep.dep_after +
                            "' in this block");
  if (!before_found)
    diag.error(dep.loc, "dep before(" + dep.dep_before + "): no later node '" + dep.dep_before +
                            "' in this block");
}

// Terminators, dep, assign placement and branch targets of one node list (a block or a loop body).
void check_node_list(const GraphIndex& index, const Block& block, const std::vector<Node>& nodes,
                     size_t depth) {
  Diagnostics& diag = index.diag;
  const bool consumer = index.is_consumer(block);
  const Node* terminator = nullptr;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (terminator) {
      diag.error(n.loc, describe(n) + " follows the " + describe(*terminator) + " at " +
                            line_col(terminator->loc) + " and can never run");
      break;
    }
    switch (n.kind) {
      case NodeKind::Return:
        terminator = &n;
        break;
      case NodeKind::Yield:
        if (block.name != "entry") terminator = &n;
        break;
      case NodeKind::Dep:
        check_dep(nodes, i, diag);
        break;
      case NodeKind::Assign:
        if (block.name != "entry")
          diag.error(n.loc, "assign '" + n.var + "' outside block 'entry' (block '" + block.name +
                                "'): temporaries are declared in entry only");
        else if (depth > 0)
          diag.error(n.loc, "assign '" + n.var + "' inside a loop: declare it before the loop");
        break;
      case NodeKind::Branch:
        if (consumer)
          diag.error(n.loc, "consumer block '" + block.name + "' may not branch to other blocks");
        for (const auto* target : {&n.then_block, &n.else_block}) {
          if (target->empty()) continue;
          const Block* t = index.block(*target);
          if (!t)
            diag.error(n.loc, "branch to undefined block '" + *target + "'");
          else if (t->name == "entry")
            diag.error(n.loc, "branch to block 'entry' (entry runs only as the start of a step)");
          else if (index.is_consumer(*t))
            diag.error(n.loc, "branch to consumer block '" + *target +
                                  "' (it starts with await and runs only through a yield)");
        }
        break;
      case NodeKind::Loop:
        check_node_list(index, block, n.body, depth + 1);
        break;
      default:
        break;
    }
  }
}

// Every block reached through `branch` from `start`, reporting a cycle at the closing branch.
void check_cycles(const GraphIndex& index) {
  std::map<std::string, int> state;  // 0 unvisited, 1 on the stack, 2 done
  std::vector<std::string> path;
  std::function<void(const Block&)> visit = [&](const Block& b) {
    state[b.name] = 1;
    path.push_back(b.name);
    for_each_node(b.nodes, [&](const Node& n, size_t) {
      if (n.kind != NodeKind::Branch) return;
      for (const auto* target : {&n.then_block, &n.else_block}) {
        const Block* t = target->empty() ? nullptr : index.block(*target);
        if (!t || t->name == "entry") continue;  // reported as their own errors
        if (state[t->name] == 1) {
          std::string cycle;
          bool on = false;
          for (const auto& p : path) {
            on |= p == t->name;
            if (on) cycle += p + " -> ";
          }
          index.diag.error(n.loc, "block '" + t->name + "' reaches itself through branches (" +
                                      cycle + t->name + ")");
        } else if (state[t->name] == 0) {
          visit(*t);
        }
      }
    });
    path.pop_back();
    state[b.name] = 2;
  };
  for (const auto& b : index.graph.blocks)
    if (state[b.name] == 0) visit(b);
}

// An `assign` must come before every use of its variable in entry.
void check_assign_order(const GraphIndex& index) {
  const Block* entry = index.entry();
  if (!entry) return;
  std::map<std::string, SourceLocation> first_use;
  for_each_node(entry->nodes, [&](const Node& n, size_t) {
    if (n.kind == NodeKind::Assign) {
      auto it = first_use.find(n.var);
      if (it != first_use.end())
        index.diag.error(
            n.loc, "assign '" + n.var + "' comes after its first use at " + line_col(it->second));
      return;
    }
    if (n.kind == NodeKind::Loop) return;  // its body is visited on its own
    std::vector<VarAccess> accesses;
    collect_accesses(index, n, accesses);
    for (const auto& a : accesses) first_use.emplace(a.name, a.loc);
  });
}

}  // namespace

void check_control_flow(const GraphIndex& index) {
  if (!index.entry()) {
    SourceLocation loc;
    loc.origin = index.graph.origin;
    loc.line = 1;
    loc.col = 1;
    index.diag.error(loc, "the graph has no block 'entry'");
  }
  for (const auto& b : index.graph.blocks) check_node_list(index, b, b.nodes, 0);
  check_cycles(index);
  check_assign_order(index);
}

}  // namespace oi::validation
