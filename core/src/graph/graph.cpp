// Graph lookups, node numbering and source excerpts.
#include "openinfer/graph.hpp"

#include <algorithm>
#include <string>

namespace oi {

std::string SourceLocation::to_string() const {
  if (line == 0) return origin;
  return origin + ":" + std::to_string(line) + ":" + std::to_string(col);
}

bool Access::is_plain_ref() const {
  if (has_brackets && slots.empty()) return false;
  for (const Slot& slot : slots) {
    if (slot.kind != Slot::Kind::Index) return false;
  }
  return true;
}

const Block* Graph::find_block(std::string_view name) const {
  for (const Block& block : blocks) {
    if (block.name == name) return &block;
  }
  return nullptr;
}

Block* Graph::find_block(std::string_view name) {
  return const_cast<Block*>(static_cast<const Graph&>(*this).find_block(name));
}

const VarDecl* Graph::find_decl(std::string_view name) const {
  for (const VarDecl& decl : decls) {
    if (decl.name == name) return &decl;
  }
  return nullptr;
}

VarDecl* Graph::find_decl(std::string_view name) {
  return const_cast<VarDecl*>(static_cast<const Graph&>(*this).find_decl(name));
}

size_t Graph::node_count() const {
  size_t count = 0;
  for (const Block& block : blocks) {
    for_each_node(block.nodes, [&](const Node&, size_t) { ++count; });
  }
  return count;
}

namespace {

void number_nodes_in(std::vector<Node>& nodes, const std::string& block_name,
                     const std::string& path_prefix, uint32_t& next_index) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& node = nodes[i];
    std::string path = path_prefix + std::to_string(i);
    node.index = next_index++;
    node.uuid = node_uuid(block_name, path);
    if (node.kind == NodeKind::Loop) number_nodes_in(node.body, block_name, path + "/", next_index);
  }
}

}  // namespace

void Graph::number_nodes() {
  for (Block& block : blocks) {
    uint32_t next_index = 0;
    number_nodes_in(block.nodes, block.name, "", next_index);
  }
}

std::string source_excerpt(std::string_view source, const SourceLocation& loc,
                           std::string_view hint) {
  std::string out;
  if (loc.line > 0 && !source.empty()) {
    size_t begin = 0;
    for (uint32_t line = 1; line < loc.line && begin != std::string_view::npos; ++line) {
      begin = source.find('\n', begin);
      if (begin != std::string_view::npos) ++begin;
    }
    if (begin != std::string_view::npos) {
      size_t end = source.find('\n', begin);
      if (end == std::string_view::npos) end = source.size();
      if (end > begin && source[end - 1] == '\r') --end;
      std::string_view text = source.substr(begin, end - begin);
      // A long line (minified or generated source) shows a window around the caret, marked
      // with "..." where it was cut, so one error never prints a whole 200 KB line.
      constexpr size_t kHalfWindow = 80;
      const size_t caret = loc.col > 0 ? loc.col - 1 : 0;
      size_t from = 0, to = text.size();
      if (text.size() > 2 * kHalfWindow) {
        from = caret > kHalfWindow ? std::min(caret - kHalfWindow, text.size()) : 0;
        to = std::min(text.size(), std::max(caret, from) + kHalfWindow);
      }
      const std::string_view lead = from > 0 ? "..." : "";
      out += "    ";
      out += lead;
      out += text.substr(from, to - from);
      if (to < text.size()) out += "...";
      out += "\n    ";
      out += std::string(lead.size(), ' ');
      // Keep tabs so the caret lines up under the same column on screen.
      for (size_t i = from; i < caret; ++i) {
        out += (i < text.size() && text[i] == '\t') ? '\t' : ' ';
      }
      out += "^";
    }
  }
  if (!hint.empty()) {
    if (!out.empty()) out += "\n";
    out += "    hint: ";
    out += hint;
  }
  return out;
}

std::string Graph::excerpt(const SourceLocation& loc, std::string_view hint) const {
  return source_excerpt(source, loc, hint);
}

std::vector<Diagnostic> Graph::warnings() const {
  std::vector<Diagnostic> found;
  for (const VarDecl& decl : decls) {
    for (const Attribute& attribute : decl.other_attributes) {
      found.push_back({attribute.loc, "unknown attribute '@" + attribute.name + "' on '" +
                                          decl.name + "' is kept but not interpreted"});
    }
  }
  return found;
}

}  // namespace oi
