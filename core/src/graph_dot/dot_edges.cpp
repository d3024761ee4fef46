// The edges of graph_to_dot that are not the source order: yield/await, dep and data.
#include "dot_edges.hpp"

#include <algorithm>
#include <set>

#include "dot_text.hpp"

namespace oi::dot {

std::string edge(const std::string& from, const std::string& to, const std::string& attrs) {
  return from + " -> " + to + " [" + attrs + "];";
}

namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

// The variables a node reads and writes as data (not indices or bounds).
void data_names(const Node& n, std::vector<std::string>& reads, std::vector<std::string>& writes) {
  for (const Ref& r : n.inputs) reads.push_back(r.name);
  switch (n.kind) {
    case NodeKind::Op:
    case NodeKind::Transfer:
      writes.push_back(n.output.name);
      break;
    case NodeKind::CacheRead:
      reads.push_back(n.target.name);
      writes.push_back(n.output.name);
      break;
    case NodeKind::CacheWrite:
    case NodeKind::CacheReset:
      writes.push_back(n.target.name);
      break;
    case NodeKind::CacheIncrement:
    case NodeKind::CacheDecrement:
      reads.push_back(n.var);
      writes.push_back(n.var);
      break;
    case NodeKind::Branch:
      if (!n.cond.empty()) reads.push_back(n.cond);
      break;
    case NodeKind::Return:
    case NodeKind::Yield:
      reads.insert(reads.end(), n.names.begin(), n.names.end());
      break;
    case NodeKind::Await:
      writes.insert(writes.end(), n.names.begin(), n.names.end());
      break;
    case NodeKind::Assign:
      writes.push_back(n.var);
      break;
    default:
      break;
  }
}

}  // namespace

// yield -> each consumer's await, the consumer's closing yield -> entry's matching await.
void yield_edges(const Graph& graph, const EndFn& end, std::vector<std::string>& edges) {
  const Block* entry = graph.find_block("entry");
  if (!entry) return;
  std::vector<const Node*> flat;
  for_each_node(entry->nodes, [&](const Node& n, size_t) { flat.push_back(&n); });
  const std::string style =
      "style=dashed, color=\"#6a51a3\", fontcolor=\"#6a51a3\", penwidth=1.6, constraint=false, ";
  for (size_t p = 0; p < flat.size(); ++p) {
    const Node& y = *flat[p];
    if (y.kind != NodeKind::Yield) continue;
    for (size_t b = 0; b < graph.blocks.size(); ++b) {
      const Block& c = graph.blocks[b];
      if (&c == entry || c.nodes.empty() || c.nodes.front().kind != NodeKind::Await) continue;
      const auto& want = c.nodes.front().names;
      const auto yielded = [&](const std::string& w) {
        return std::find(y.names.begin(), y.names.end(), w) != y.names.end();
      };
      if (want.empty() || !std::all_of(want.begin(), want.end(), yielded)) continue;
      const std::string names = join_names(want);
      edges.push_back(
          edge(end(y), end(c.nodes.front()), style + "label=" + dot_quote("yield " + names)));
      const Node& last = c.nodes.back();
      if (last.kind != NodeKind::Yield) continue;
      for (size_t q = p + 1; q < flat.size(); ++q) {
        if (flat[q]->kind != NodeKind::Await) continue;
        const auto& got = flat[q]->names;
        if (std::none_of(got.begin(), got.end(), [&](const std::string& w) {
              return std::find(want.begin(), want.end(), w) != want.end();
            }))
          continue;
        edges.push_back(
            edge(end(last), end(*flat[q]), style + "label=" + dot_quote("await " + names)));
        break;
      }
    }
  }
}

// dep after(a) before(b): the nearest earlier `a` to the nearest later `b` of the same list.
void dep_edges(const std::vector<Node>& nodes, const EndFn& end, std::vector<std::string>& edges) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& d = nodes[i];
    if (d.kind != NodeKind::Dep) continue;
    const Node* after = nullptr;
    const Node* before = nullptr;
    for (size_t j = i; j-- > 0;)
      if (node_keyword(nodes[j]) == d.dep_after && nodes[j].kind != NodeKind::Loop) {
        after = &nodes[j];
        break;
      }
    for (size_t j = i + 1; j < nodes.size(); ++j)
      if (node_keyword(nodes[j]) == d.dep_before && nodes[j].kind != NodeKind::Loop) {
        before = &nodes[j];
        break;
      }
    if (!after || !before) continue;  // the validator reports these
    edges.push_back(edge(end(*after), end(*before),
                         "style=dotted, color=\"#cb181d\", fontcolor=\"#cb181d\", penwidth=1.6, "
                         "constraint=false, label=\"dep\""));
  }
}

// From the last earlier writer in the same block (source order), else from the variable's
// row in its memory table (a temporary: from its assign).
void data_edges(const Graph& graph, const Labels& labels, const EndFn& end,
                std::vector<std::string>& edges) {
  for (const Block& block : graph.blocks) {
    std::map<std::string, std::string, std::less<>> writer;
    for_each_node(block.nodes, [&](const Node& n, size_t) {
      if (n.kind == NodeKind::Loop) return;
      std::vector<std::string> reads, writes;
      data_names(n, reads, writes);
      std::set<std::string> done;
      for (const std::string& r : reads) {
        if (!labels.is_variable(r) || !done.insert(r).second) continue;
        std::string from;
        if (auto it = writer.find(r); it != writer.end()) {
          from = it->second;
        } else if (const VarDecl* d = graph.find_decl(r)) {
          from = dot_quote("mem_" + std::string(memory_kind_name(d->memory))) + ":" + dot_quote(r);
        } else if (const Node* a = labels.assign_of(r)) {
          from = end(*a);
        }
        if (from.empty() || from == end(n)) continue;
        edges.push_back(edge(
            from, end(n),
            "color=\"#9e9e9e\", fontcolor=\"#757575\", constraint=false, label=" + dot_quote(r)));
      }
      for (const std::string& w : writes) writer[w] = end(n);
    });
  }
}

}  // namespace oi::dot
