// graph_to_dot: a graph as Graphviz DOT (docs/cli.md "openinfer graph dot").
//
// Layout: one cluster per block, its nodes chained top to bottom in source order, the blocks
// stacked in source order under the memory tables (invisible edges), so the picture stays one
// column wide and its labels readable when it is shown at page width. A run of consecutive
// assigns is one table node. A loop is a cluster nested in its block (a scope would be one more
// nested cluster, emitted the same way by emit_list); consecutive nodes of one decoration group
// (a fused kernel) share a cluster. Edges that are not the source order (branches, yield/await,
// dep, data) are collected while the clusters are written, emitted after them at the top level,
// and do not constrain the layout.
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <utility>

#include "dot_text.hpp"
#include "openinfer/graph_dot.hpp"
#include "openinfer/model.hpp"

namespace oi {
namespace {

using dot::dot_quote;
using dot::html;

constexpr size_t kLabelWidth = 44;  // characters per label line before it wraps

// One piece of label text: HTML and the characters it shows.
struct Piece {
  std::string markup;
  size_t width = 0;
};

class DotWriter {
 public:
  DotWriter(const Graph& graph, const DotOptions& options) : g_(graph), o_(options) {}

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
    add_yield_edges();
    if (o_.data_edges) add_data_edges();
    for (const std::string& e : edges_) out_ << "  " << e << "\n";
    out_ << "}\n";
    return out_.str();
  }

 private:
  const Graph& g_;
  const DotOptions& o_;
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

  // --- names and text ----------------------------------------------------------------------

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

  const Node* assign_of(std::string_view name) const {
    const Block* entry = g_.find_block("entry");
    if (!entry) return nullptr;
    for (const Node& n : entry->nodes)
      if (n.kind == NodeKind::Assign && n.var == name) return &n;
    return nullptr;
  }

  bool is_variable(std::string_view name) const {
    return g_.find_decl(name) != nullptr || assign_of(name) != nullptr;
  }

  // A variable's name in its memory kind's ink; other names (loop indices) as they are.
  std::string name_markup(std::string_view name) const {
    const char* ink = nullptr;
    if (const VarDecl* d = g_.find_decl(name))
      ink = dot::memory_colours(d->memory).ink;
    else if (assign_of(name))
      ink = dot::temporary_colours().ink;
    if (!ink) return html(name);
    return std::string("<FONT COLOR=\"") + ink + "\">" + html(name) + "</FONT>";
  }

  Piece ref_piece(const Ref& r) const {
    const std::string idx = dot::indices_text(r);
    return {name_markup(r.name) + html(idx), r.name.size() + idx.size()};
  }

  Piece access_piece(const Access& a) const {
    const std::string slots = dot::slots_text(a);
    return {name_markup(a.name) + html(slots), a.name.size() + slots.size()};
  }

  Piece name_piece(const std::string& name) const { return {name_markup(name), name.size()}; }

  // Pieces joined by ", ", broken into lines of about kLabelWidth characters.
  static std::string join(const std::vector<Piece>& pieces, size_t first_width = 0) {
    std::string s;
    size_t line = first_width;
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (i) {
        s += ",";
        ++line;
        if (line + 1 + pieces[i].width > kLabelWidth) {
          s += "<BR/>";
          line = 0;
        } else {
          s += " ";
          ++line;
        }
      }
      s += pieces[i].markup;
      line += pieces[i].width;
    }
    return s;
  }

  std::string dim_text(const Dim& dim) const {
    if (o_.model) {
      uint64_t product = 1;
      bool known = true;
      for (const DimFactor& f : dim.factors) {
        if (!f.is_sizevar()) {
          product *= static_cast<uint64_t>(f.value);
        } else if (auto v = o_.model->find_sizevar(f.sizevar)) {
          product *= *v;
        } else {
          known = false;
        }
      }
      if (known) return std::to_string(product);
    }
    std::string s;
    for (size_t i = 0; i < dim.factors.size(); ++i) {
      const DimFactor& f = dim.factors[i];
      s += (i ? "*" : "") + (f.is_sizevar() ? f.sizevar : std::to_string(f.value));
    }
    return s;
  }

  std::string bound_text(const Bound& b) const {
    if (o_.model && b.is_name() && !g_.find_decl(b.name))
      if (auto v = o_.model->find_sizevar(b.name)) return std::to_string(*v);
    return dot::bound_text(b);
  }

  // "f32[B, D]" (dims resolved with a model), "i32" for a scalar.
  std::string type_text(DType dtype, const std::vector<Dim>& dims) const {
    std::string s(dtype_name(dtype));
    if (dims.empty()) return s;
    s += "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dim_text(dims[i]);
    return s + "]";
  }

  // --- the memory sections -------------------------------------------------------------------

  std::string decl_text(const VarDecl& d) const {
    std::string s = d.name;
    if (!d.indices.empty()) {
      s += "(";
      for (size_t i = 0; i < d.indices.size(); ++i) s += (i ? ", " : "") + d.indices[i];
      s += ")";
    }
    s += ": " + type_text(d.dtype, d.dims);
    if (d.table) s += " @table";
    if (!d.fixed.empty()) {
      s += " @fixed(";
      for (size_t i = 0; i < d.fixed.size(); ++i)
        s += (i ? ", " : "") + d.fixed[i].index + "=" + bound_text(d.fixed[i].bound);
      s += ")";
    }
    if (!d.auto_dim.empty()) {
      s += " @auto_dim(";
      for (size_t i = 0; i < d.auto_dim.size(); ++i) s += (i ? ", " : "") + d.auto_dim[i];
      s += ")";
    }
    if (d.init) s += " @init(" + dot::value_text(*d.init) + ")";
    return s;
  }

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
             << html(decl_text(*d)) << "</TD></TR>";
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
    const auto ends = emit_list(block.nodes, "b" + std::to_string(b), 2);
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
  // edges. Returns the ids of the first and the last node drawn.
  std::pair<std::string, std::string> emit_list(const std::vector<Node>& nodes,
                                                const std::string& owner, size_t depth) {
    if (nodes.empty()) {
      const std::string empty = owner + "_empty";
      indent(depth);
      out_ << dot_quote(empty) << " [label=\"(empty)\", shape=plaintext, style=\"\"];\n";
      return {empty, empty};
    }
    std::string first, previous;
    std::optional<size_t> open_group;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      const DotNodeMark* mark = mark_of(n);
      const std::optional<size_t> group = mark ? mark->group : std::nullopt;
      if (group != open_group) {
        if (open_group) close_cluster(--depth);
        if (group) open_group_cluster(*group, depth++);
        open_group = group;
      }
      std::pair<std::string, std::string> ends;
      if (n.kind == NodeKind::Loop) {
        ends = emit_loop(n, depth);
      } else if (n.kind == NodeKind::Assign && !group) {
        size_t j = i;
        while (j + 1 < nodes.size() && nodes[j + 1].kind == NodeKind::Assign &&
               !(mark_of(nodes[j + 1]) && mark_of(nodes[j + 1])->group))
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
    if (open_group) close_cluster(--depth);
    add_dep_edges(nodes);
    return {first, previous};
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
           << a.var << "\"><B>assign</B> " << name_markup(a.var)
           << html(": " + type_text(a.dtype, a.dims)) << "</TD></TR>";
      if (k > i) endpoint_[&a] = dot_quote(run) + ":" + dot_quote(a.var);
    }
    out_ << "</TABLE>>];\n";
    if (j > i) endpoint_[&nodes[i]] = dot_quote(run) + ":" + dot_quote(nodes[i].var);
  }

  void open_group_cluster(size_t group, size_t depth) {
    const DotGroup& g = o_.decorations->groups.at(group);
    indent(depth);
    out_ << "subgraph " << dot_quote(cluster_name("group")) << " {\n";
    indent(depth + 1);
    out_ << "label=" << dot_quote(g.label)
         << "; style=\"rounded,filled\"; fillcolor=" << dot_quote(g.fill)
         << "; color=\"#777777\"; fontsize=10;\n";
  }

  void close_cluster(size_t depth) {
    indent(depth);
    out_ << "}\n";
  }

  std::pair<std::string, std::string> emit_loop(const Node& loop, size_t depth) {
    indent(depth);
    out_ << "subgraph " << dot_quote(cluster_name("loop")) << " {\n";
    indent(depth + 1);
    out_ << "label="
         << dot_quote("loop " + loop.loop_name + " (" + loop.var + " in " + bound_text(loop.start) +
                      ".." + bound_text(loop.end) + ")")
         << "; style=\"rounded,filled\"; fillcolor=\"#f5f5f5\"; color=\"#999999\";\n";
    auto ends = emit_list(loop.body, id(loop), depth + 1);
    close_cluster(depth);
    return ends;
  }

  const DotNodeMark* mark_of(const Node& n) const {
    if (!o_.decorations) return nullptr;
    auto it = o_.decorations->marks.find(&n);
    return it == o_.decorations->marks.end() ? nullptr : &it->second;
  }

  // Label markup, shape and fill of a node by kind.
  struct Look {
    std::string label;
    const char* shape = "box";
    const char* style = "rounded,filled";
    std::string fill = "#ffffff";
    const char* font = nullptr;
  };

  Look look(const Node& n) const {
    Look k;
    const std::string kw(node_keyword(n));
    const std::string head = "<B>" + html(n.kind == NodeKind::Op ? n.op : kw) + "</B>";
    const std::string arrow = " &#8594; ";
    switch (n.kind) {
      case NodeKind::Op: {
        std::vector<Piece> inputs;
        for (const Ref& r : n.inputs) inputs.push_back(ref_piece(r));
        const Piece out = access_piece(n.output);
        k.label = head + "<BR/>" + join(inputs) + arrow + out.markup;
        if (!n.settings.empty()) {
          std::vector<Piece> settings;
          for (const Setting& s : n.settings) {
            const std::string v = dot::value_text(s.value);
            settings.push_back({html(s.name) + "=" +
                                    (s.value.kind == Value::Kind::Ident ? name_markup(v) : html(v)),
                                s.name.size() + 1 + v.size()});
          }
          k.label += "<BR/><FONT POINT-SIZE=\"9\">" + join(settings) + "</FONT>";
        }
        break;
      }
      case NodeKind::Assign:
        k.label = head + " " + name_markup(n.var) + html(": " + type_text(n.dtype, n.dims));
        k.style = "filled";
        k.fill = dot::temporary_colours().fill;
        break;
      case NodeKind::Transfer:
        k.label = head + "<BR/>" + ref_piece(n.inputs.at(0)).markup + arrow +
                  access_piece(n.output).markup;
        k.style = "filled";
        k.fill = "#e0f3f8";
        break;
      case NodeKind::CacheRead:
        k.label =
            head + "<BR/>" + access_piece(n.target).markup + arrow + access_piece(n.output).markup;
        k.style = "filled";
        k.fill = "#fff7bc";
        break;
      case NodeKind::CacheWrite:
        k.label = head + "<BR/>" + ref_piece(n.inputs.at(0)).markup + arrow +
                  access_piece(n.target).markup;
        k.style = "filled";
        k.fill = "#fff7bc";
        break;
      case NodeKind::CacheIncrement:
      case NodeKind::CacheDecrement:
        k.label =
            head + (n.amount != 1 ? " " + std::to_string(n.amount) : "") + " " + name_markup(n.var);
        k.style = "filled";
        k.fill = "#fff7bc";
        break;
      case NodeKind::CacheReset:
        k.label = head + " " + access_piece(n.target).markup;
        k.style = "filled";
        k.fill = "#fff7bc";
        break;
      case NodeKind::Branch:
        k.label = head + (n.cond.empty() ? "" : " " + name_markup(n.cond));
        k.shape = "hexagon";
        k.style = "filled";
        k.fill = "#deebf7";
        break;
      case NodeKind::Return:
      case NodeKind::Yield:
      case NodeKind::Await: {
        std::vector<Piece> names;
        for (const std::string& name : n.names) names.push_back(name_piece(name));
        k.label = head + (names.empty() ? "" : " " + join(names, kw.size() + 1));
        k.fill = n.kind == NodeKind::Return ? "#eeeeee" : "#efedf5";
        if (n.kind != NodeKind::Return) k.shape = n.kind == NodeKind::Yield ? "house" : "invhouse";
        if (n.kind != NodeKind::Return) k.style = "filled";
        break;
      }
      case NodeKind::Barrier:
        k.label = head;
        k.style = "filled";
        k.fill = "#222222";
        k.font = "#ffffff";
        break;
      case NodeKind::Dep:
        k.label = head + html(" after(" + n.dep_after + ") before(" + n.dep_before + ")");
        k.shape = "note";
        k.style = "filled";
        k.fill = "#fde0dd";
        break;
      case NodeKind::Loop:
        break;  // drawn as a cluster
    }
    return k;
  }

  void emit_node(const Node& n, size_t depth) {
    Look k = look(n);
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

  void edge(const std::string& from, const std::string& to, const std::string& attrs) {
    edges_.push_back(from + " -> " + to + " [" + attrs + "];");
  }

  size_t block_index(std::string_view name) const {
    for (size_t b = 0; b < g_.blocks.size(); ++b)
      if (g_.blocks[b].name == name) return b;
    return g_.blocks.size();
  }

  // Into the target block's cluster: the edge ends at its border.
  void branch_edge(const Node& from, const std::string& target, const std::string& label) {
    const size_t b = block_index(target);
    if (b == g_.blocks.size()) return;  // the validator reports unknown blocks
    edge(end(from), dot_quote(block_first_[b]),
         "lhead=" + dot_quote("cluster_block_" + target) + ", label=" + dot_quote(label) +
             ", color=\"#2166ac\", fontcolor=\"#2166ac\", penwidth=1.4, constraint=false");
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

  // yield -> each consumer's await, the consumer's closing yield -> entry's matching await.
  void add_yield_edges() {
    const Block* entry = g_.find_block("entry");
    if (!entry) return;
    std::vector<const Node*> flat;
    for_each_node(entry->nodes, [&](const Node& n, size_t) { flat.push_back(&n); });
    const std::string style =
        "style=dashed, color=\"#6a51a3\", fontcolor=\"#6a51a3\", penwidth=1.6, constraint=false, ";
    for (size_t p = 0; p < flat.size(); ++p) {
      const Node& y = *flat[p];
      if (y.kind != NodeKind::Yield) continue;
      for (size_t b = 0; b < g_.blocks.size(); ++b) {
        const Block& c = g_.blocks[b];
        if (&c == entry || c.nodes.empty() || c.nodes.front().kind != NodeKind::Await) continue;
        const auto& want = c.nodes.front().names;
        const auto yielded = [&](const std::string& w) {
          return std::find(y.names.begin(), y.names.end(), w) != y.names.end();
        };
        if (want.empty() || !std::all_of(want.begin(), want.end(), yielded)) continue;
        const std::string names = join_names(want);
        edge(end(y), end(c.nodes.front()), style + "label=" + dot_quote("yield " + names));
        const Node& last = c.nodes.back();
        if (last.kind != NodeKind::Yield) continue;
        for (size_t q = p + 1; q < flat.size(); ++q) {
          if (flat[q]->kind != NodeKind::Await) continue;
          const auto& got = flat[q]->names;
          if (std::none_of(got.begin(), got.end(), [&](const std::string& w) {
                return std::find(want.begin(), want.end(), w) != want.end();
              }))
            continue;
          edge(end(last), end(*flat[q]), style + "label=" + dot_quote("await " + names));
          break;
        }
      }
    }
  }

  static std::string join_names(const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
    return s;
  }

  // dep after(a) before(b): the nearest earlier `a` to the nearest later `b` of the same list.
  void add_dep_edges(const std::vector<Node>& nodes) {
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
      edge(end(*after), end(*before),
           "style=dotted, color=\"#cb181d\", fontcolor=\"#cb181d\", penwidth=1.6, "
           "constraint=false, label=\"dep\"");
    }
  }

  // The variables a node reads and writes as data (not indices or bounds).
  static void data_names(const Node& n, std::vector<std::string>& reads,
                         std::vector<std::string>& writes) {
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

  // From the last earlier writer in the same block (source order), else from the variable's
  // row in its memory table (a temporary: from its assign).
  void add_data_edges() {
    for (const Block& block : g_.blocks) {
      std::map<std::string, std::string, std::less<>> writer;
      for_each_node(block.nodes, [&](const Node& n, size_t) {
        if (n.kind == NodeKind::Loop) return;
        std::vector<std::string> reads, writes;
        data_names(n, reads, writes);
        std::set<std::string> done;
        for (const std::string& r : reads) {
          if (!is_variable(r) || !done.insert(r).second) continue;
          std::string from;
          if (auto it = writer.find(r); it != writer.end()) {
            from = it->second;
          } else if (const VarDecl* d = g_.find_decl(r)) {
            from =
                dot_quote("mem_" + std::string(memory_kind_name(d->memory))) + ":" + dot_quote(r);
          } else if (const Node* a = assign_of(r)) {
            from = end(*a);
          }
          if (from.empty() || from == end(n)) continue;
          edge(from, end(n),
               "color=\"#9e9e9e\", fontcolor=\"#757575\", constraint=false, label=" + dot_quote(r));
        }
        for (const std::string& w : writes) writer[w] = end(n);
      });
    }
  }
};

}  // namespace

std::string graph_to_dot(const Graph& graph, const DotOptions& options) {
  return DotWriter(graph, options).write();
}

}  // namespace oi
