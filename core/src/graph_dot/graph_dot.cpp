// graph_to_dot: a graph as Graphviz DOT (docs/cli.md "openinfer graph dot").
//
// Layout: one cluster per block, its nodes chained top to bottom in source order, the blocks
// stacked in source order under the memory tables (invisible edges), so the picture stays one
// column wide and its labels readable when it is shown at page width. A run of consecutive
// assigns is one table node. Loops and scopes are clusters nested in their block; consecutive
// nodes of one decoration group (a fused kernel) share a cluster. Edges that are not the source
// order (branches, yield/await, dep, data) are collected while the clusters are written, emitted
// after them at the top level, and do not constrain the layout.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <utility>

#include "dot_edges.hpp"
#include "dot_labels.hpp"
#include "dot_text.hpp"
#include "openinfer/graph_dot.hpp"
#include "openinfer/model.hpp"

namespace oi {
namespace {

using dot::dot_quote;
using dot::html;

constexpr size_t kNoGroup = SIZE_MAX;

class DotWriter {
 public:
  DotWriter(const Graph& graph, const DotOptions& options)
      : g_(graph), o_(options), labels_(graph, options.model) {}

  std::string write() {
    number();
    const DotDecorations* d = o_.decorations;
    const std::string title =
        d && !d->title.empty() ? d->title : std::filesystem::path(g_.origin).filename().string();
    out_ << "digraph " << dot_quote(title) << " {\n"
         << "  graph [fontname=\"DejaVu Sans\", fontsize=12, compound=true, newrank=true, "
            "rankdir=TB, nodesep=0.25, ranksep=0.3, labelloc=t, label="
         << dot_quote(title) << "];\n"
         << "  node [fontname=\"DejaVu Sans\", fontsize=11, shape=box, style=\"rounded,filled\", "
            "fillcolor=\"#ffffff\", margin=\"0.08,0.04\"];\n"
         << "  edge [fontname=\"DejaVu Sans\", fontsize=9, arrowsize=0.6, color=\"#555555\"];\n";
    write_memory();
    for (size_t b = 0; b < g_.blocks.size(); ++b) write_block(b);
    stack_blocks();
    add_branch_edges();
    const dot::EndFn end_fn = [this](const Node& n) { return end(n); };
    dot::yield_edges(g_, end_fn, edges_);
    if (o_.data_edges) dot::data_edges(g_, labels_, end_fn, edges_);
    for (const std::string& e : edges_) out_ << "  " << e << "\n";
    out_ << "}\n";
    return out_.str();
  }

 private:
  const Graph& g_;
  const DotOptions& o_;
  dot::Labels labels_;
  std::ostringstream out_;
  std::vector<std::string> edges_;
  std::map<const Node*, std::string> ids_;
  std::vector<std::string> block_first_;  // per block: its first node's id
  std::vector<std::string> block_last_;   // per block: its last node's id
  std::string memory_anchor_;             // a memory table, above the first block
  // Where edges of a node start and end when it is not a node of its own (an assign of a run:
  // its row of the run's table).
  std::map<const Node*, std::string> endpoint_;
  size_t clusters_ = 0;

  // --- ids ---------------------------------------------------------------------------------

  void number() {
    for (size_t b = 0; b < g_.blocks.size(); ++b) {
      size_t n = 0;
      for_each_node(g_.blocks[b].nodes, [&](const Node& node, size_t) {
        ids_[&node] = "b" + std::to_string(b) + "_" + std::to_string(n++);
      });
    }
  }

  const std::string& id(const Node& n) const { return ids_.at(&n); }

  // The node's end of an edge, quoted (with a port for an assign of a run).
  std::string end(const Node& n) const {
    auto it = endpoint_.find(&n);
    return it != endpoint_.end() ? it->second : dot_quote(id(n));
  }

  // --- the memory sections -------------------------------------------------------------------

  // One table per memory section, rows coloured by kind, each row a port for data edges.
  void write_memory() {
    const bool temporaries = assign_of_any();
    if (g_.decls.empty() && !temporaries) return;
    out_ << "  subgraph \"cluster_memory\" {\n"
         << "    label=\"memory\"; style=\"rounded\"; color=\"#aaaaaa\";\n";
    std::vector<std::string> tables;
    for (MemoryKind kind : {MemoryKind::Dynamic, MemoryKind::Volatile, MemoryKind::Constant,
                            MemoryKind::Persistent}) {
      std::vector<const VarDecl*> decls;
      for (const VarDecl& d : g_.decls)
        if (d.memory == kind) decls.push_back(&d);
      if (decls.empty()) continue;
      const dot::KindColours c = dot::memory_colours(kind);
      out_ << "    " << dot_quote("mem_" + std::string(memory_kind_name(kind)))
           << " [shape=plaintext, style=\"\", margin=0, label=<<TABLE BORDER=\"0\" "
              "CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\"><TR><TD BGCOLOR=\""
           << c.ink << "\"><FONT COLOR=\"#ffffff\"><B>" << memory_kind_name(kind)
           << "</B></FONT></TD></TR>";
      for (const VarDecl* d : decls)
        out_ << "<TR><TD ALIGN=\"LEFT\" BGCOLOR=\"" << c.fill << "\" PORT=\"" << d->name << "\">"
             << html(labels_.decl_text(*d)) << "</TD></TR>";
      out_ << "</TABLE>>];\n";
      tables.push_back(dot_quote("mem_" + std::string(memory_kind_name(kind))));
    }
    if (temporaries) {
      // The legend of the assign nodes' colour: temporaries are declared where they are drawn.
      const dot::KindColours c = dot::temporary_colours();
      out_ << "    \"mem_temporary\" [shape=plaintext, style=\"\", margin=0, label=<<TABLE "
              "BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\"><TR><TD BGCOLOR=\""
           << c.ink
           << "\"><FONT COLOR=\"#ffffff\"><B>temporary</B></FONT></TD></TR><TR><TD BGCOLOR=\""
           << c.fill << "\">assign, in entry</TD></TR></TABLE>>];\n";
      tables.push_back("\"mem_temporary\"");
    }
    // Left to right in section order.
    out_ << "    {rank=same;";
    for (const std::string& t : tables) out_ << " " << t << ";";
    out_ << "}\n";
    for (size_t i = 1; i < tables.size(); ++i)
      out_ << "    " << tables[i - 1] << " -> " << tables[i] << " [style=invis];\n";
    out_ << "  }\n";
    memory_anchor_ = tables.front();
  }

  bool assign_of_any() const {
    const Block* entry = g_.find_block("entry");
    return entry && std::any_of(entry->nodes.begin(), entry->nodes.end(),
                                [](const Node& n) { return n.kind == NodeKind::Assign; });
  }

  // --- blocks, loops and nodes -------------------------------------------------------------

  void indent(size_t depth) { out_ << std::string(2 * depth, ' '); }

  std::string cluster_name(const std::string& what) {
    return "cluster_" + what + std::to_string(clusters_++);
  }

  void write_block(size_t b) {
    const Block& block = g_.blocks[b];
    const bool consumer = !block.nodes.empty() && block.nodes.front().kind == NodeKind::Await;
    out_ << "  subgraph " << dot_quote("cluster_block_" + block.name) << " {\n"
         << "    label=" << dot_quote("block " + block.name + (consumer ? " (consumer)" : ""))
         << "; style=\"rounded\"; color=\"#666666\"; penwidth=1.5; fontsize=13;\n";
    const auto ends = emit_list(block, block.nodes, -1, "b" + std::to_string(b), 2);
    block_first_.push_back(ends.first);
    block_last_.push_back(ends.second);
    out_ << "  }\n";
  }

  // One column: the memory tables, then each block under the one before it.
  void stack_blocks() {
    std::string above = memory_anchor_;
    for (size_t b = 0; b < g_.blocks.size(); ++b) {
      if (!above.empty())
        edges_.push_back(above + " -> " + dot_quote(block_first_[b]) + " [style=invis, weight=4];");
      above = dot_quote(block_last_[b]);
    }
  }

  // Emits the nodes of one list (a block or a loop body) with their sequence edges and dep
  // edges, scopes and decoration groups as clusters around runs of them (a group, a fused
  // kernel, never crosses a scope boundary). `base` is the scope the list itself lies in (a
  // loop's). Returns the ids of the first and the last node drawn.
  std::pair<std::string, std::string> emit_list(const Block& block, const std::vector<Node>& nodes,
                                                int32_t base, const std::string& owner,
                                                size_t depth) {
    if (nodes.empty()) {
      const std::string empty = owner + "_empty";
      indent(depth);
      out_ << dot_quote(empty) << " [label=\"(empty)\", shape=plaintext, style=\"\"];\n";
      return {empty, empty};
    }
    std::string first, previous;
    std::vector<int32_t> open_scopes;  // outermost first
    size_t open_group = kNoGroup;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      const size_t group = group_of(n);
      const std::vector<int32_t> scopes = scope_chain(block, n.scope, base);
      size_t keep = 0;
      while (keep < open_scopes.size() && keep < scopes.size() && open_scopes[keep] == scopes[keep])
        ++keep;
      if (open_group != kNoGroup && (group != open_group || keep < open_scopes.size() ||
                                     scopes.size() > open_scopes.size())) {
        close_cluster(--depth);
        open_group = kNoGroup;
      }
      for (; open_scopes.size() > keep; open_scopes.pop_back()) close_cluster(--depth);
      for (; open_scopes.size() < scopes.size(); ++depth) {
        open_scopes.push_back(scopes[open_scopes.size()]);
        open_scope_cluster(block, open_scopes.back(), depth);
      }
      if (group != kNoGroup && group != open_group) {
        open_group_cluster(group, depth++);
        open_group = group;
      }
      std::pair<std::string, std::string> ends;
      if (n.kind == NodeKind::Loop) {
        ends = emit_loop(block, n, depth);
      } else if (n.kind == NodeKind::Assign && group == kNoGroup) {
        size_t j = i;
        while (j + 1 < nodes.size() && nodes[j + 1].kind == NodeKind::Assign &&
               nodes[j + 1].scope == n.scope && group_of(nodes[j + 1]) == kNoGroup)
          ++j;
        emit_assigns(nodes, i, j, depth);
        ends = {id(n), id(n)};
        i = j;
      } else {
        emit_node(n, depth);
        ends = {id(n), id(n)};
      }
      if (!previous.empty())
        edges_.push_back(dot_quote(previous) + " -> " + dot_quote(ends.first) + ";");
      if (first.empty()) first = ends.first;
      previous = ends.second;
    }
    if (open_group != kNoGroup) close_cluster(--depth);
    for (; !open_scopes.empty(); open_scopes.pop_back()) close_cluster(--depth);
    dot::dep_edges(
        nodes, [this](const Node& n) { return end(n); }, edges_);
    return {first, previous};
  }

  // The node's decoration group, kNoGroup without one.
  size_t group_of(const Node& n) const {
    const DotNodeMark* mark = mark_of(n);
    return mark && mark->group ? *mark->group : kNoGroup;
  }

  // The scopes from just inside `base` down to `scope`, outermost first (empty when `scope`
  // is `base`).
  static std::vector<int32_t> scope_chain(const Block& block, int32_t scope, int32_t base) {
    std::vector<int32_t> chain;
    for (int32_t s = scope; s >= 0 && s != base && static_cast<size_t>(s) < block.scopes.size();
         s = block.scopes[static_cast<size_t>(s)].parent)
      chain.insert(chain.begin(), s);
    return chain;
  }

  // A scope: a dashed green cluster labelled with its name and hints.
  void open_scope_cluster(const Block& block, int32_t scope, size_t depth) {
    const Scope& sc = block.scopes[static_cast<size_t>(scope)];
    std::string label = "scope " + sc.name;
    if (!sc.hints.empty()) {
      label += " (";
      for (size_t h = 0; h < sc.hints.size(); ++h)
        label += (h ? ", " : "") + sc.hints[h].name + "=" + dot::value_text(sc.hints[h].value);
      label += ")";
    }
    indent(depth);
    out_ << "subgraph " << dot_quote(cluster_name("scope")) << " {\n";
    indent(depth + 1);
    out_ << "label=" << dot_quote(label)
         << "; style=\"rounded,dashed\"; color=\"#1b9e77\"; fontcolor=\"#1b9e77\"; penwidth=1.4; "
            "fontsize=11; labeljust=l;\n";
  }

  // Assigns i..j as one table node (its id the first assign's), a row and a port each.
  void emit_assigns(const std::vector<Node>& nodes, size_t i, size_t j, size_t depth) {
    const std::string run = id(nodes[i]);
    indent(depth);
    out_ << dot_quote(run)
         << " [shape=plaintext, style=\"\", margin=0, label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" "
            "CELLSPACING=\"0\" CELLPADDING=\"3\">";
    for (size_t k = i; k <= j; ++k) {
      const Node& a = nodes[k];
      out_ << "<TR><TD ALIGN=\"LEFT\" BGCOLOR=\"" << dot::temporary_colours().fill << "\" PORT=\""
           << a.var << "\">" << labels_.assign_row(a) << "</TD></TR>";
      if (k > i) endpoint_[&a] = dot_quote(run) + ":" + dot_quote(a.var);
    }
    out_ << "</TABLE>>];\n";
    if (j > i) endpoint_[&nodes[i]] = dot_quote(run) + ":" + dot_quote(nodes[i].var);
  }

  void open_group_cluster(size_t group, size_t depth) {
    const DotGroup& g = o_.decorations->groups.at(group);
    indent(depth);
    // Named after the group: the runs of a kernel whose op moved up (PlanKernel::reordered)
    // become one cluster, drawn around the moved op with the source order's edges crossing it.
    out_ << "subgraph " << dot_quote("cluster_group_" + std::to_string(group)) << " {\n";
    indent(depth + 1);
    out_ << "label=" << dot_quote(g.label)
         << "; style=\"rounded,filled\"; fillcolor=" << dot_quote(g.fill)
         << "; color=\"#777777\"; fontcolor=\"#000000\"; penwidth=1; fontsize=10; labeljust=l;\n";
  }

  void close_cluster(size_t depth) {
    indent(depth);
    out_ << "}\n";
  }

  std::pair<std::string, std::string> emit_loop(const Block& block, const Node& loop,
                                                size_t depth) {
    indent(depth);
    out_ << "subgraph " << dot_quote(cluster_name("loop")) << " {\n";
    indent(depth + 1);
    out_ << "label="
         << dot_quote("loop " + loop.loop_name + " (" + loop.var + " in " +
                      labels_.bound_text(loop.start) + ".." + labels_.bound_text(loop.end) + ")")
         << "; style=\"rounded,filled\"; fillcolor=\"#f5f5f5\"; color=\"#999999\"; "
            "fontcolor=\"#000000\"; penwidth=1; fontsize=11; labeljust=l;\n";
    auto ends = emit_list(block, loop.body, loop.scope, id(loop), depth + 1);
    close_cluster(depth);
    return ends;
  }

  const DotNodeMark* mark_of(const Node& n) const {
    if (!o_.decorations) return nullptr;
    auto it = o_.decorations->marks.find(&n);
    return it == o_.decorations->marks.end() ? nullptr : &it->second;
  }

  // Label markup, shape and fill of a node by kind.
  void emit_node(const Node& n, size_t depth) {
    dot::Look k = labels_.look(n);
    if (const DotNodeMark* mark = mark_of(n)) {
      if (!mark->fill.empty()) k.fill = mark->fill;
      if (!mark->note.empty())
        k.label += "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"#555555\">" + html(mark->note) + "</FONT>";
    }
    indent(depth);
    out_ << dot_quote(id(n)) << " [label=<" << k.label << ">";
    if (std::string_view(k.shape) != "box") out_ << ", shape=" << k.shape;
    if (std::string_view(k.style) != "rounded,filled") out_ << ", style=" << dot_quote(k.style);
    if (k.fill != "#ffffff") out_ << ", fillcolor=" << dot_quote(k.fill);
    if (k.font) out_ << ", fontcolor=" << dot_quote(k.font);
    if (n.loc.line)
      out_ << ", tooltip="
           << dot_quote(std::filesystem::path(n.loc.origin).filename().string() + ":" +
                        std::to_string(n.loc.line));
    out_ << "];\n";
  }

  // --- edges other than the source order ---------------------------------------------------

  size_t block_index(std::string_view name) const {
    for (size_t b = 0; b < g_.blocks.size(); ++b)
      if (g_.blocks[b].name == name) return b;
    return g_.blocks.size();
  }

  // Into the target block's cluster: the edge ends at its border.
  void branch_edge(const Node& from, const std::string& target, const std::string& label) {
    const size_t b = block_index(target);
    if (b == g_.blocks.size()) return;  // the validator reports unknown blocks
    edges_.push_back(dot::edge(
        end(from), dot_quote(block_first_[b]),
        "lhead=" + dot_quote("cluster_block_" + target) + ", label=" + dot_quote(label) +
            ", color=\"#2166ac\", fontcolor=\"#2166ac\", penwidth=1.4, constraint=false"));
  }

  void add_branch_edges() {
    for (const Block& block : g_.blocks)
      for_each_node(block.nodes, [&](const Node& n, size_t) {
        if (n.kind != NodeKind::Branch) return;
        if (n.cond.empty()) {
          branch_edge(n, n.then_block, "branch");
        } else {
          branch_edge(n, n.then_block, n.cond);
          branch_edge(n, n.else_block, "not " + n.cond);
        }
      });
  }
};

}  // namespace

std::string graph_to_dot(const Graph& graph, const DotOptions& options) {
  return DotWriter(graph, options).write();
}

}  // namespace oi
