// Labels of nodes and declarations for graph_to_dot: HTML-like text with every variable's name
// in its memory kind's ink, dims with the model's size variables resolved when there is one.
#include "dot_labels.hpp"

#include "dot_text.hpp"
#include "openinfer/model.hpp"

namespace oi::dot {

namespace {
constexpr size_t kLabelWidth = 44;  // characters per label line before it wraps
}  // namespace

Labels::Labels(const Graph& graph, const Model* model) : g_(graph), model_(model) {
  if (const Block* entry = g_.find_block("entry"))
    for (const Node& n : entry->nodes)
      if (n.kind == NodeKind::Assign) assigns_.emplace(n.var, &n);
}

std::string Labels::assign_row(const Node& a) const {
  return "<B>assign</B> " + name_markup(a.var) + html(": " + type_text(a.dtype, a.dims));
}

const Node* Labels::assign_of(std::string_view name) const {
  auto it = assigns_.find(name);
  return it == assigns_.end() ? nullptr : it->second;
}

bool Labels::is_variable(std::string_view name) const {
  return g_.find_decl(name) != nullptr || assign_of(name) != nullptr;
}

// A variable's name in its memory kind's ink; other names (loop indices) as they are.
std::string Labels::name_markup(std::string_view name) const {
  const char* ink = nullptr;
  if (const VarDecl* d = g_.find_decl(name))
    ink = memory_colours(d->memory).ink;
  else if (assign_of(name))
    ink = temporary_colours().ink;
  if (!ink) return html(name);
  return std::string("<FONT COLOR=\"") + ink + "\">" + html(name) + "</FONT>";
}

Labels::Piece Labels::ref_piece(const Ref& r) const {
  const std::string idx = indices_text(r);
  return {name_markup(r.name) + html(idx), r.name.size() + idx.size()};
}

Labels::Piece Labels::access_piece(const Access& a) const {
  const std::string slots = slots_text(a);
  return {name_markup(a.name) + html(slots), a.name.size() + slots.size()};
}

Labels::Piece Labels::name_piece(const std::string& name) const {
  return {name_markup(name), name.size()};
}

// Pieces joined by ", ", broken into lines of about kLabelWidth characters.
std::string Labels::join(const std::vector<Piece>& pieces, size_t first_width) {
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

std::string Labels::dim_text(const Dim& dim) const {
  if (model_) {
    uint64_t product = 1;
    bool known = true;
    for (const DimFactor& f : dim.factors) {
      if (!f.is_sizevar()) {
        product *= static_cast<uint64_t>(f.value);
      } else if (auto v = model_->find_sizevar(f.sizevar)) {
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

std::string Labels::bound_text(const Bound& b) const {
  if (model_ && b.is_name() && !g_.find_decl(b.name))
    if (auto v = model_->find_sizevar(b.name)) return std::to_string(*v);
  return dot::bound_text(b);
}

// "f32[B, D]" (dims resolved with a model), "i32" for a scalar.
std::string Labels::type_text(DType dtype, const std::vector<Dim>& dims) const {
  std::string s(dtype_name(dtype));
  if (dims.empty()) return s;
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dim_text(dims[i]);
  return s + "]";
}

std::string Labels::decl_text(const VarDecl& d) const {
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
  if (d.init) s += " @init(" + value_text(*d.init) + ")";
  return s;
}

Look Labels::look(const Node& n) const {
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
          const std::string v = value_text(s.value);
          settings.push_back(
              {html(s.name) + "=" + (s.value.kind == Value::Kind::Ident ? name_markup(v) : html(v)),
               s.name.size() + 1 + v.size()});
        }
        k.label += "<BR/><FONT POINT-SIZE=\"9\">" + join(settings) + "</FONT>";
      }
      break;
    }
    case NodeKind::Assign:
      k.label = head + " " + name_markup(n.var) + html(": " + type_text(n.dtype, n.dims));
      k.style = "filled";
      k.fill = temporary_colours().fill;
      break;
    case NodeKind::Transfer:
      k.label =
          head + "<BR/>" + ref_piece(n.inputs.at(0)).markup + arrow + access_piece(n.output).markup;
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
      k.label =
          head + "<BR/>" + ref_piece(n.inputs.at(0)).markup + arrow + access_piece(n.target).markup;
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

}  // namespace oi::dot
