// Internal to graph_to_dot: how nodes and declarations are labelled and drawn.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "openinfer/graph.hpp"

namespace oi {
class Model;
}

namespace oi::dot {

// How one node is drawn: its HTML-like label, shape, style and fill.
struct Look {
  std::string label;
  const char* shape = "box";
  const char* style = "rounded,filled";
  std::string fill = "#ffffff";
  const char* font = nullptr;
};

class Labels {
 public:
  // `model` (may be null) resolves size variables in dims and bounds.
  Labels(const Graph& graph, const Model* model);

  const Node* assign_of(std::string_view name) const;  // entry's assign of a temporary
  bool is_variable(std::string_view name) const;       // declared or assigned
  // A variable's name in its memory kind's ink; other names (loop indices) as they are.
  std::string name_markup(std::string_view name) const;
  std::string type_text(DType dtype, const std::vector<Dim>& dims) const;  // "f32[B, D]"
  std::string bound_text(const Bound& b) const;
  // "K(l, t): f16[H, Dh] @table @fixed(l=L) @auto_dim(...) @init(...)", plain text.
  std::string decl_text(const VarDecl& d) const;
  std::string assign_row(const Node& assign) const;  // "<B>assign</B> t0: f32[B]"
  Look look(const Node& n) const;

 private:
  // One piece of label text: HTML and the characters it shows.
  struct Piece {
    std::string markup;
    size_t width = 0;
  };
  Piece ref_piece(const Ref& r) const;
  Piece access_piece(const Access& a) const;
  Piece name_piece(const std::string& name) const;
  // Pieces joined by ", ", broken into lines of about kLabelWidth characters.
  static std::string join(const std::vector<Piece>& pieces, size_t first_width = 0);
  std::string dim_text(const Dim& dim) const;

  const Graph& g_;
  const Model* model_;
  std::map<std::string, const Node*, std::less<>> assigns_;
};

}  // namespace oi::dot
