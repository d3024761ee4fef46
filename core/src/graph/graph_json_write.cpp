// Graph -> JSON (docs/graph-json.md). Every optional field is written only when set, in a fixed
// order, so the output is a pure function of the graph.
#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cmath>

#include "json_pretty.hpp"
#include "openinfer/graph_json.hpp"

namespace oi {

namespace json = boost::json;

namespace {

class Writer {
 public:
  explicit Writer(const GraphJsonOptions& options) : options_(options) {}

  json::value graph(const Graph& g) const {
    json::object out;
    out["format"] = "openinfer-graph";
    const bool scoped = std::any_of(g.blocks.begin(), g.blocks.end(),
                                    [](const Block& b) { return !b.scopes.empty(); });
    out["version"] = scoped ? kGraphJsonVersion : 1;
    out["origin"] = g.origin;
    json::array decls;
    for (const VarDecl& decl : g.decls) decls.push_back(this->decl(decl));
    out["decls"] = std::move(decls);
    json::array blocks;
    for (const Block& block : g.blocks) {
      json::object b;
      b["name"] = block.name;
      add_loc(b, block.loc);
      if (!block.scopes.empty()) b["scopes"] = scopes(block.scopes);
      b["nodes"] = nodes(block.nodes);
      blocks.push_back(std::move(b));
    }
    out["blocks"] = std::move(blocks);
    return out;
  }

 private:
  void add_loc(json::object& out, const SourceLocation& loc) const {
    if (options_.locations && loc.line > 0) out["loc"] = json::array{loc.line, loc.col};
  }

  static json::value value(const Value& v) {
    json::object out;
    std::string_view tag = value_kind_name(v.kind);
    switch (v.kind) {
      case Value::Kind::Int:
        if (v.above_int64)
          out[tag] = static_cast<uint64_t>(v.int_value);
        else
          out[tag] = v.int_value;
        break;
      case Value::Kind::Float:
        out[tag] = float_text(v.float_value);
        break;
      case Value::Kind::Bool:
        out[tag] = v.bool_value;
        break;
      case Value::Kind::String:
      case Value::Kind::Ident:
        out[tag] = v.text;
        break;
      case Value::Kind::DType:
        out[tag] = dtype_name(v.dtype);
        break;
      case Value::Kind::IntList: {
        json::array ints;
        for (int64_t i : v.ints) ints.push_back(i);
        out[tag] = std::move(ints);
        break;
      }
    }
    return out;
  }

  // Shortest text that reads back to the same double; inf spelled out.
  static std::string float_text(double v) {
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, result.ptr);
  }

  static json::value dims(const std::vector<Dim>& dims) {
    json::array out;
    for (const Dim& dim : dims) {
      json::array factors;
      for (const DimFactor& factor : dim.factors) {
        if (factor.is_sizevar()) {
          factors.push_back(json::value(factor.sizevar));
        } else {
          factors.push_back(factor.value);
        }
      }
      out.push_back(std::move(factors));
    }
    return out;
  }

  static json::value bound(const Bound& b) {
    return b.is_name() ? json::value(b.name) : json::value(b.value);
  }

  static json::value index(const Index& i) {
    if (i.is_literal()) return i.offset;
    if (i.offset == 0) return json::value(i.name);
    return json::object{{"name", i.name}, {"offset", i.offset}};
  }

  static json::value strings(const std::vector<std::string>& names) {
    json::array out;
    for (const std::string& name : names) out.push_back(json::value(name));
    return out;
  }

  json::value ref(const Ref& r) const {
    json::object out;
    out["name"] = r.name;
    if (!r.indices.empty()) {
      json::array indices;
      for (const Index& i : r.indices) indices.push_back(index(i));
      out["indices"] = std::move(indices);
    }
    add_loc(out, r.loc);
    return out;
  }

  json::value access(const Access& a) const {
    json::object out;
    out["name"] = a.name;
    if (a.has_brackets) {
      json::array slots;
      for (const Slot& slot : a.slots) {
        json::object s;
        switch (slot.kind) {
          case Slot::Kind::Index:
            s["index"] = index(slot.index);
            break;
          case Slot::Kind::Range:
            s["start"] = slot.start ? index(*slot.start) : json::value(nullptr);
            s["end"] = slot.end ? index(*slot.end) : json::value(nullptr);
            break;
          case Slot::Kind::All:
            s["all"] = true;
            break;
        }
        slots.push_back(std::move(s));
      }
      out["slots"] = std::move(slots);
    }
    add_loc(out, a.loc);
    return out;
  }

  json::value decl(const VarDecl& d) const {
    json::object out;
    out["name"] = d.name;
    out["memory"] = memory_kind_name(d.memory);
    out["dtype"] = dtype_name(d.dtype);
    out["dims"] = dims(d.dims);
    if (!d.indices.empty()) out["indices"] = strings(d.indices);
    if (d.init) out["init"] = value(*d.init);
    if (d.ref) out["ref"] = *d.ref;
    if (d.pattern) out["pattern"] = *d.pattern;
    if (d.table) out["table"] = true;
    if (!d.fixed.empty()) {
      json::array fixed;
      for (const FixedBound& f : d.fixed) {
        fixed.push_back(json::object{{"index", f.index}, {"bound", bound(f.bound)}});
      }
      out["fixed"] = std::move(fixed);
    }
    if (!d.auto_dim.empty()) out["auto_dim"] = strings(d.auto_dim);
    if (!d.other_attributes.empty()) {
      json::array attributes;
      for (const Attribute& a : d.other_attributes) {
        json::object attribute;
        attribute["name"] = a.name;
        json::array args;
        for (const Value& v : a.args) args.push_back(value(v));
        attribute["args"] = std::move(args);
        add_loc(attribute, a.loc);
        attributes.push_back(std::move(attribute));
      }
      out["attributes"] = std::move(attributes);
    }
    add_loc(out, d.loc);
    return out;
  }

  json::value settings(const std::vector<Setting>& list) const {
    json::array out;
    for (const Setting& s : list) {
      json::object setting;
      setting["name"] = s.name;
      setting["value"] = value(s.value);
      add_loc(setting, s.loc);
      out.push_back(std::move(setting));
    }
    return out;
  }

  json::value scopes(const std::vector<Scope>& list) const {
    json::array out;
    for (const Scope& s : list) {
      json::object scope;
      scope["name"] = s.name;
      if (s.parent >= 0) scope["parent"] = s.parent;
      if (!s.hints.empty()) scope["hints"] = settings(s.hints);
      add_loc(scope, s.loc);
      out.push_back(std::move(scope));
    }
    return out;
  }

  json::value nodes(const std::vector<Node>& list) const {
    json::array out;
    for (const Node& n : list) out.push_back(node(n));
    return out;
  }

  json::value node(const Node& n) const {
    json::object out;
    out["kind"] = node_kind_name(n.kind);
    out["uuid"] = n.uuid;
    add_loc(out, n.loc);
    if (n.scope >= 0) out["scope"] = n.scope;
    switch (n.kind) {
      case NodeKind::Assign:
        out["var"] = n.var;
        out["dtype"] = dtype_name(n.dtype);
        out["dims"] = dims(n.dims);
        break;
      case NodeKind::Op: {
        out["op"] = n.op;
        json::array inputs;
        for (const Ref& r : n.inputs) inputs.push_back(ref(r));
        out["inputs"] = std::move(inputs);
        out["settings"] = settings(n.settings);
        out["output"] = access(n.output);
        break;
      }
      case NodeKind::Transfer:
        out["input"] = ref(n.inputs.at(0));
        out["output"] = access(n.output);
        break;
      case NodeKind::CacheRead:
        out["target"] = access(n.target);
        out["output"] = access(n.output);
        break;
      case NodeKind::CacheWrite:
        out["input"] = ref(n.inputs.at(0));
        out["target"] = access(n.target);
        break;
      case NodeKind::CacheIncrement:
      case NodeKind::CacheDecrement:
        out["var"] = n.var;
        out["amount"] = n.amount;
        break;
      case NodeKind::CacheReset:
        out["target"] = access(n.target);
        break;
      case NodeKind::Loop:
        out["name"] = n.loop_name;
        out["var"] = n.var;
        out["start"] = bound(n.start);
        out["end"] = bound(n.end);
        out["body"] = nodes(n.body);
        break;
      case NodeKind::Branch:
        if (!n.cond.empty()) out["cond"] = n.cond;
        out["then"] = n.then_block;
        if (!n.cond.empty()) out["else"] = n.else_block;
        break;
      case NodeKind::Return:
      case NodeKind::Yield:
      case NodeKind::Await:
        out["names"] = strings(n.names);
        break;
      case NodeKind::Barrier:
        break;
      case NodeKind::Dep:
        out["after"] = n.dep_after;
        out["before"] = n.dep_before;
        break;
    }
    return out;
  }

  GraphJsonOptions options_;
};

}  // namespace

std::string graph_to_json(const Graph& graph, const GraphJsonOptions& options) {
  std::string out;
  detail::append_pretty_json(out, Writer(options).graph(graph));
  out += '\n';
  return out;
}

}  // namespace oi
