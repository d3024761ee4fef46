// JSON -> Graph (docs/graph-json.md). Every field is type-checked and unknown fields are
// rejected, each error naming the JSON path of the problem.
#include <boost/json.hpp>
#include <charconv>
#include <initializer_list>
#include <limits>

#include "openinfer/error.hpp"
#include "openinfer/graph_json.hpp"

namespace oi {

namespace json = boost::json;

namespace {

// Matches the parser's loop nesting cap, so every consumer's recursion stays bounded.
constexpr size_t kMaxLoopDepth = 64;

class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  Graph graph(const json::value& root) {
    const json::object& o = object(root, "");
    check_keys(o, "", {"format", "version", "origin", "decls", "blocks"});
    if (string(field(o, "", "format"), "format") != "openinfer-graph") {
      fail("format", "expected \"openinfer-graph\"");
    }
    int64_t version = integer(field(o, "", "version"), "version");
    if (version < 1 || version > kGraphJsonVersion) {
      fail("version", "unsupported version " + std::to_string(version) +
                          " (this reader knows 1 to " + std::to_string(kGraphJsonVersion) + ")");
    }
    version_ = version;
    Graph g;
    g.origin = o.contains("origin") ? string(o.at("origin"), "origin") : origin_;
    origin_ = g.origin;
    const json::array& decls = array(field(o, "", "decls"), "decls");
    for (size_t i = 0; i < decls.size(); ++i) {
      g.decls.push_back(decl(decls[i], "decls[" + std::to_string(i) + "]"));
    }
    const json::array& blocks = array(field(o, "", "blocks"), "blocks");
    for (size_t i = 0; i < blocks.size(); ++i) {
      std::string path = "blocks[" + std::to_string(i) + "]";
      const json::object& b = object(blocks[i], path);
      if (version_ >= 2) {
        check_keys(b, path, {"name", "loc", "scopes", "nodes"});
      } else {
        check_keys(b, path, {"name", "loc", "nodes"});
      }
      Block block;
      block.name = name(field(b, path, "name"), path + ".name");
      block.loc = loc(b, path);
      if (const json::value* x = b.if_contains("scopes"))
        block.scopes = scopes(*x, path + ".scopes");
      scope_count_ = block.scopes.size();
      block.nodes = nodes(field(b, path, "nodes"), path + ".nodes", 0);
      g.blocks.push_back(std::move(block));
    }
    g.number_nodes();
    return g;
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw Error(ErrorKind::Input,
                "invalid graph JSON at " + (path.empty() ? std::string("the top level") : path) +
                    ": " + message,
                origin_);
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  const json::value& field(const json::object& o, const std::string& path,
                           std::string_view key) const {
    const json::value* v = o.if_contains(key);
    if (!v) fail(join(path, key), "missing field");
    return *v;
  }

  void check_keys(const json::object& o, const std::string& path,
                  std::initializer_list<std::string_view> allowed) const {
    for (const auto& member : o) {
      bool known = false;
      for (std::string_view key : allowed) known = known || member.key() == key;
      if (!known) fail(join(path, member.key()), "unknown field");
    }
  }

  const json::object& object(const json::value& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object");
    return v.get_object();
  }
  const json::array& array(const json::value& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "expected an array");
    return v.get_array();
  }
  std::string string(const json::value& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string");
    return std::string(v.get_string());
  }
  std::string name(const json::value& v, const std::string& path) const {
    std::string s = string(v, path);
    if (s.empty()) fail(path, "expected a non-empty name");
    return s;
  }
  bool boolean(const json::value& v, const std::string& path) const {
    if (!v.is_bool()) fail(path, "expected true or false");
    return v.get_bool();
  }
  int64_t integer(const json::value& v, const std::string& path) const {
    if (v.is_int64()) return v.get_int64();
    if (v.is_uint64() &&
        v.get_uint64() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return static_cast<int64_t>(v.get_uint64());
    }
    fail(path, "expected a 64-bit signed integer");
  }
  int64_t non_negative(const json::value& v, const std::string& path) const {
    int64_t i = integer(v, path);
    if (i < 0) fail(path, "expected a non-negative integer");
    return i;
  }
  uint32_t position(const json::value& v, const std::string& path) const {
    int64_t i = integer(v, path);
    if (i < 1 || i > std::numeric_limits<uint32_t>::max())
      fail(path, "expected a positive line or column");
    return static_cast<uint32_t>(i);
  }
  std::vector<std::string> names(const json::value& v, const std::string& path) const {
    const json::array& a = array(v, path);
    std::vector<std::string> out;
    for (size_t i = 0; i < a.size(); ++i)
      out.push_back(name(a[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }
  DType dtype(const json::value& v, const std::string& path) const {
    std::string s = string(v, path);
    std::optional<DType> t = dtype_from_name(s);
    if (!t) fail(path, "unknown dtype '" + s + "'");
    return *t;
  }

  SourceLocation loc(const json::object& o, const std::string& path) const {
    SourceLocation out{origin_, 0, 0};
    const json::value* v = o.if_contains("loc");
    if (!v) return out;
    std::string p = join(path, "loc");
    const json::array& a = array(*v, p);
    if (a.size() != 2) fail(p, "expected [line, column]");
    out.line = position(a[0], p + "[0]");
    out.col = position(a[1], p + "[1]");
    return out;
  }

  double float_value(const std::string& text, const std::string& path) const {
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
    // Decimal notation only: from_chars would also accept "nan" and "infinity".
    bool decimal = !text.empty();
    for (char c : text) {
      decimal = decimal && ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
                            c == '+' || c == '-');
    }
    if (!decimal) fail(path, "expected a decimal float, \"inf\" or \"-inf\"");
    double d = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, d);
    if (ec != std::errc() || ptr != end || text.empty()) {
      fail(path, "expected a decimal float, \"inf\" or \"-inf\"");
    }
    return d;
  }

  Value value(const json::value& v, const std::string& path) const {
    const json::object& o = object(v, path);
    if (o.size() != 1)
      fail(path,
           "expected an object with exactly one of int, float, bool, string, dtype, ident, "
           "int_list");
    const auto& member = *o.begin();
    std::string p = join(path, member.key());
    std::string_view tag = member.key();
    if (tag == "int") {
      if (member.value().is_uint64() &&
          member.value().get_uint64() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Value::unsigned_integer(member.value().get_uint64());
      return Value::integer(integer(member.value(), p));
    }
    if (tag == "float") return Value::floating(float_value(string(member.value(), p), p));
    if (tag == "bool") return Value::boolean(boolean(member.value(), p));
    if (tag == "string") return Value::string(string(member.value(), p));
    if (tag == "dtype") return Value::dtype_name(dtype(member.value(), p));
    if (tag == "ident") return Value::ident(name(member.value(), p));
    if (tag == "int_list") {
      const json::array& a = array(member.value(), p);
      std::vector<int64_t> ints;
      for (size_t i = 0; i < a.size(); ++i)
        ints.push_back(integer(a[i], p + "[" + std::to_string(i) + "]"));
      return Value::int_list(std::move(ints));
    }
    fail(p, "unknown value kind");
  }

  Value literal(const json::value& v, const std::string& path) const {
    Value out = value(v, path);
    if (!out.is_literal()) fail(path, "expected a literal (int, float, bool or string)");
    return out;
  }

  std::vector<Dim> dims(const json::value& v, const std::string& path) const {
    std::vector<Dim> out;
    const json::array& a = array(v, path);
    for (size_t i = 0; i < a.size(); ++i) {
      std::string p = path + "[" + std::to_string(i) + "]";
      const json::array& factors = array(a[i], p);
      if (factors.empty()) fail(p, "a dim needs at least one factor");
      Dim dim;
      for (size_t j = 0; j < factors.size(); ++j) {
        std::string fp = p + "[" + std::to_string(j) + "]";
        DimFactor factor;
        if (factors[j].is_string()) {
          factor.sizevar = name(factors[j], fp);
        } else {
          factor.value = non_negative(factors[j], fp);
        }
        dim.factors.push_back(std::move(factor));
      }
      out.push_back(std::move(dim));
    }
    return out;
  }

  Bound bound(const json::value& v, const std::string& path) const {
    Bound out;
    if (v.is_string()) {
      out.name = name(v, path);
    } else {
      out.value = non_negative(v, path);
    }
    return out;
  }

  Index index(const json::value& v, const std::string& path) const {
    Index out;
    if (v.is_string()) {
      out.name = name(v, path);
    } else if (v.is_object()) {
      const json::object& o = v.get_object();
      check_keys(o, path, {"name", "offset"});
      out.name = name(field(o, path, "name"), join(path, "name"));
      out.offset = integer(field(o, path, "offset"), join(path, "offset"));
    } else {
      out.offset = integer(v, path);
    }
    return out;
  }

  Ref ref(const json::value& v, const std::string& path) const {
    const json::object& o = object(v, path);
    check_keys(o, path, {"name", "indices", "loc"});
    Ref out;
    out.name = name(field(o, path, "name"), join(path, "name"));
    if (const json::value* indices = o.if_contains("indices")) {
      std::string p = join(path, "indices");
      const json::array& a = array(*indices, p);
      for (size_t i = 0; i < a.size(); ++i)
        out.indices.push_back(index(a[i], p + "[" + std::to_string(i) + "]"));
    }
    out.loc = loc(o, path);
    return out;
  }

  Access access(const json::value& v, const std::string& path) const {
    const json::object& o = object(v, path);
    check_keys(o, path, {"name", "slots", "loc"});
    Access out;
    out.name = name(field(o, path, "name"), join(path, "name"));
    if (const json::value* slots = o.if_contains("slots")) {
      out.has_brackets = true;
      std::string p = join(path, "slots");
      const json::array& a = array(*slots, p);
      for (size_t i = 0; i < a.size(); ++i)
        out.slots.push_back(slot(a[i], p + "[" + std::to_string(i) + "]"));
    }
    out.loc = loc(o, path);
    return out;
  }

  Slot slot(const json::value& v, const std::string& path) const {
    const json::object& o = object(v, path);
    Slot out;
    if (o.contains("index")) {
      check_keys(o, path, {"index"});
      out.kind = Slot::Kind::Index;
      out.index = index(o.at("index"), join(path, "index"));
    } else if (o.contains("start") || o.contains("end")) {
      check_keys(o, path, {"start", "end"});
      out.kind = Slot::Kind::Range;
      for (std::string_view key : {"start", "end"}) {
        std::optional<Index>& end = key == "start" ? out.start : out.end;
        const json::value& e = field(o, path, key);
        if (!e.is_null()) end = index(e, join(path, key));
      }
    } else if (o.contains("all")) {
      check_keys(o, path, {"all"});
      if (!boolean(o.at("all"), join(path, "all"))) fail(join(path, "all"), "expected true");
      out.kind = Slot::Kind::All;
    } else {
      fail(path,
           "expected a slot: {\"index\": ...}, {\"start\": ..., \"end\": ...} or {\"all\": true}");
    }
    return out;
  }

  VarDecl decl(const json::value& v, const std::string& path) const {
    const json::object& o = object(v, path);
    check_keys(o, path,
               {"name", "memory", "dtype", "dims", "indices", "init", "ref", "pattern", "table",
                "fixed", "auto_dim", "attributes", "loc"});
    VarDecl d;
    d.name = name(field(o, path, "name"), join(path, "name"));
    std::string memory = string(field(o, path, "memory"), join(path, "memory"));
    std::optional<MemoryKind> kind = memory_kind_from_name(memory);
    if (!kind)
      fail(join(path, "memory"),
           "unknown memory kind '" + memory + "' (dynamic, volatile, constant, persistent)");
    d.memory = *kind;
    d.dtype = dtype(field(o, path, "dtype"), join(path, "dtype"));
    d.dims = dims(field(o, path, "dims"), join(path, "dims"));
    if (const json::value* x = o.if_contains("indices"))
      d.indices = names(*x, join(path, "indices"));
    if (const json::value* x = o.if_contains("init")) d.init = literal(*x, join(path, "init"));
    if (const json::value* x = o.if_contains("ref")) d.ref = string(*x, join(path, "ref"));
    if (const json::value* x = o.if_contains("pattern"))
      d.pattern = string(*x, join(path, "pattern"));
    if (const json::value* x = o.if_contains("table")) d.table = boolean(*x, join(path, "table"));
    if (const json::value* x = o.if_contains("fixed")) {
      std::string p = join(path, "fixed");
      const json::array& a = array(*x, p);
      for (size_t i = 0; i < a.size(); ++i) {
        std::string fp = p + "[" + std::to_string(i) + "]";
        const json::object& f = object(a[i], fp);
        check_keys(f, fp, {"index", "bound"});
        d.fixed.push_back({name(field(f, fp, "index"), join(fp, "index")),
                           bound(field(f, fp, "bound"), join(fp, "bound"))});
      }
    }
    if (const json::value* x = o.if_contains("auto_dim"))
      d.auto_dim = names(*x, join(path, "auto_dim"));
    if (const json::value* x = o.if_contains("attributes")) {
      std::string p = join(path, "attributes");
      const json::array& a = array(*x, p);
      for (size_t i = 0; i < a.size(); ++i) {
        std::string ap = p + "[" + std::to_string(i) + "]";
        const json::object& attr = object(a[i], ap);
        check_keys(attr, ap, {"name", "args", "loc"});
        Attribute attribute;
        attribute.name = name(field(attr, ap, "name"), join(ap, "name"));
        const json::array& args = array(field(attr, ap, "args"), join(ap, "args"));
        for (size_t j = 0; j < args.size(); ++j) {
          attribute.args.push_back(
              literal(args[j], join(ap, "args") + "[" + std::to_string(j) + "]"));
        }
        attribute.loc = loc(attr, ap);
        d.other_attributes.push_back(std::move(attribute));
      }
    }
    d.loc = loc(o, path);
    return d;
  }

  std::vector<Setting> settings(const json::value& v, const std::string& path) const {
    const json::array& a = array(v, path);
    std::vector<Setting> out;
    for (size_t i = 0; i < a.size(); ++i) {
      std::string sp = path + "[" + std::to_string(i) + "]";
      const json::object& s = object(a[i], sp);
      check_keys(s, sp, {"name", "value", "loc"});
      out.push_back({name(field(s, sp, "name"), join(sp, "name")),
                     value(field(s, sp, "value"), join(sp, "value")), loc(s, sp)});
    }
    return out;
  }

  // A block's scopes; a parent is an earlier scope, so paths and nesting are finite.
  std::vector<Scope> scopes(const json::value& v, const std::string& path) const {
    const json::array& a = array(v, path);
    std::vector<Scope> out;
    for (size_t i = 0; i < a.size(); ++i) {
      std::string sp = path + "[" + std::to_string(i) + "]";
      const json::object& o = object(a[i], sp);
      check_keys(o, sp, {"name", "parent", "hints", "loc"});
      Scope scope;
      scope.name = name(field(o, sp, "name"), join(sp, "name"));
      if (const json::value* x = o.if_contains("parent")) {
        int64_t parent = integer(*x, join(sp, "parent"));
        if (parent < 0 || static_cast<size_t>(parent) >= i)
          fail(join(sp, "parent"), "expected the index of an earlier scope of the block");
        scope.parent = static_cast<int32_t>(parent);
      }
      if (const json::value* x = o.if_contains("hints"))
        scope.hints = settings(*x, join(sp, "hints"));
      scope.loc = loc(o, sp);
      out.push_back(std::move(scope));
    }
    return out;
  }

  std::vector<Node> nodes(const json::value& v, const std::string& path, size_t depth) const {
    const json::array& a = array(v, path);
    std::vector<Node> out;
    out.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i)
      out.push_back(node(a[i], path + "[" + std::to_string(i) + "]", depth));
    return out;
  }

  Node node(const json::value& v, const std::string& path, size_t depth) const {
    const json::object& o = object(v, path);
    Node n;
    std::string kind = string(field(o, path, "kind"), join(path, "kind"));
    std::optional<NodeKind> k = node_kind_from_name(kind);
    if (!k) fail(join(path, "kind"), "unknown node kind '" + kind + "'");
    n.kind = *k;
    if (const json::value* uuid = o.if_contains("uuid")) string(*uuid, join(path, "uuid"));
    n.loc = loc(o, path);
    if (const json::value* x = o.if_contains("scope")) {
      if (version_ < 2) fail(join(path, "scope"), "unknown field (scopes need version 2)");
      int64_t scope = integer(*x, join(path, "scope"));
      if (scope < 0 || static_cast<size_t>(scope) >= scope_count_)
        fail(join(path, "scope"), "expected the index of one of the block's scopes");
      n.scope = static_cast<int32_t>(scope);
    }
    auto get = [&](std::string_view key) -> const json::value& { return field(o, path, key); };
    auto at = [&](std::string_view key) { return join(path, key); };
    switch (n.kind) {
      case NodeKind::Assign:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "var", "dtype", "dims"});
        n.var = name(get("var"), at("var"));
        n.dtype = dtype(get("dtype"), at("dtype"));
        n.dims = dims(get("dims"), at("dims"));
        break;
      case NodeKind::Op: {
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "op", "inputs", "settings", "output"});
        n.op = name(get("op"), at("op"));
        const json::array& inputs = array(get("inputs"), at("inputs"));
        for (size_t i = 0; i < inputs.size(); ++i)
          n.inputs.push_back(ref(inputs[i], at("inputs") + "[" + std::to_string(i) + "]"));
        n.settings = settings(get("settings"), at("settings"));
        n.output = access(get("output"), at("output"));
        break;
      }
      case NodeKind::Transfer:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "input", "output"});
        n.inputs.push_back(ref(get("input"), at("input")));
        n.output = plain(access(get("output"), at("output")), at("output"));
        break;
      case NodeKind::CacheRead:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "target", "output"});
        n.target = access(get("target"), at("target"));
        n.output = plain(access(get("output"), at("output")), at("output"));
        break;
      case NodeKind::CacheWrite:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "input", "target"});
        n.inputs.push_back(ref(get("input"), at("input")));
        n.target = access(get("target"), at("target"));
        break;
      case NodeKind::CacheIncrement:
      case NodeKind::CacheDecrement:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "var", "amount"});
        n.var = name(get("var"), at("var"));
        n.amount = non_negative(get("amount"), at("amount"));
        break;
      case NodeKind::CacheReset:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "target"});
        n.target = access(get("target"), at("target"));
        break;
      case NodeKind::Loop:
        check_keys(o, path,
                   {"kind", "uuid", "loc", "scope", "name", "var", "start", "end", "body"});
        if (depth >= kMaxLoopDepth)
          fail(path,
               "loops nest too deeply (more than " + std::to_string(kMaxLoopDepth) + " levels)");
        n.loop_name = name(get("name"), at("name"));
        n.var = name(get("var"), at("var"));
        n.start = bound(get("start"), at("start"));
        n.end = bound(get("end"), at("end"));
        n.body = nodes(get("body"), at("body"), depth + 1);
        break;
      case NodeKind::Branch:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "cond", "then", "else"});
        n.then_block = name(get("then"), at("then"));
        if (o.contains("cond") || o.contains("else")) {
          n.cond = name(get("cond"), at("cond"));
          n.else_block = name(get("else"), at("else"));
        }
        break;
      case NodeKind::Return:
      case NodeKind::Yield:
      case NodeKind::Await:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "names"});
        n.names = names(get("names"), at("names"));
        if (n.kind != NodeKind::Return && n.names.empty())
          fail(at("names"), "expected at least one name");
        break;
      case NodeKind::Barrier:
        check_keys(o, path, {"kind", "uuid", "loc", "scope"});
        break;
      case NodeKind::Dep:
        check_keys(o, path, {"kind", "uuid", "loc", "scope", "after", "before"});
        n.dep_after = name(get("after"), at("after"));
        n.dep_before = name(get("before"), at("before"));
        break;
    }
    return n;
  }

  Access plain(Access a, const std::string& path) const {
    if (!a.is_plain_ref()) fail(path, "expected a variable or table entry, not a slice");
    return a;
  }

  std::string origin_;
  int64_t version_ = 1;
  size_t scope_count_ = 0;  // of the block being read
};

}  // namespace

Graph graph_from_json(std::string_view text, std::string_view origin) {
  json::parse_options options;
  // Nesting is bounded by the loop cap (a few levels per loop); deeper input is rejected.
  options.max_depth = 8 * kMaxLoopDepth + 32;
  boost::system::error_code ec;
  json::value root = json::parse(json::string_view(text.data(), text.size()), ec, {}, options);
  if (ec) {
    throw Error(ErrorKind::Input, "malformed graph JSON: " + ec.message(), std::string(origin));
  }
  return Reader(origin).graph(root);
}

}  // namespace oi
