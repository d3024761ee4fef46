// The graph IR: what the DSL parser (dsl.md), the builder and the JSON loader produce, and what
// the validator, the simulator and the synthesizer consume. Plain data: names are kept as written
// and resolved later (size variables, declared variables and loop indices live in separate
// namespaces, see dsl.md "Memory").
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openinfer/dtype.hpp"

namespace oi {

// Where a construct was written. line and col are 1-based; col counts bytes. Zero when the
// node was built programmatically.
struct SourceLocation {
  std::string origin;  // file path, "<string>", or the JSON file a graph was loaded from
  uint32_t line = 0;
  uint32_t col = 0;

  // "origin:line:col" (just the origin when line is 0): the `where` of an oi::Error.
  std::string to_string() const;
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

enum class MemoryKind { Dynamic, Volatile, Constant, Persistent };
std::string_view memory_kind_name(MemoryKind kind);  // "dynamic", "volatile", ...
std::optional<MemoryKind> memory_kind_from_name(std::string_view name);

// A literal or setting value. Only the member named by `kind` is meaningful.
struct Value {
  enum class Kind { Int, Float, Bool, String, DType, Ident, IntList };
  Kind kind = Kind::Int;
  int64_t int_value = 0;
  // Int: an unsigned literal above INT64_MAX (a u64 setting such as `max=18446744073709551614`);
  // int_value then holds its two's-complement bits, as the plugin ABI carries it.
  bool above_int64 = false;
  double float_value = 0.0;  // may be +-inf
  bool bool_value = false;
  std::string text;  // String: the unescaped contents; Ident: the name
  DType dtype = DType::f32;
  std::vector<int64_t> ints;  // IntList

  static Value integer(int64_t v);
  static Value unsigned_integer(uint64_t v);  // above_int64 when v > INT64_MAX
  double int_as_double() const;               // Int: the literal's value as a double
  std::string int_text() const;               // Int: the literal as written (decimal)
  static Value floating(double v);
  static Value boolean(bool v);
  static Value string(std::string s);
  static Value dtype_name(DType t);
  static Value ident(std::string name);
  static Value int_list(std::vector<int64_t> v);
  bool is_literal() const;  // Int, Float, Bool or String: what @init and attributes accept
  friend bool operator==(const Value&, const Value&) = default;
};
std::string_view value_kind_name(Value::Kind kind);  // "int", "float", ... (JSON tags)

// One factor of a dim: an integer, or a size variable when `sizevar` is non-empty.
struct DimFactor {
  int64_t value = 0;
  std::string sizevar;
  bool is_sizevar() const { return !sizevar.empty(); }
  friend bool operator==(const DimFactor&, const DimFactor&) = default;
};

// A dim is the product of its factors (`3*D`); never empty.
struct Dim {
  std::vector<DimFactor> factors;
  friend bool operator==(const Dim&, const Dim&) = default;
};

// A loop bound or @fixed bound: an integer literal, or a name when `name` is non-empty
// (size variable, scalar variable or outer loop index).
struct Bound {
  int64_t value = 0;
  std::string name;
  bool is_name() const { return !name.empty(); }
  friend bool operator==(const Bound&, const Bound&) = default;
};

// An index expression: `3`, `-3`, `l`, `t-1`, `t+2`. A literal when `name` is empty (the value
// is `offset`), else name + offset.
struct Index {
  std::string name;
  int64_t offset = 0;
  bool is_literal() const { return name.empty(); }
  friend bool operator==(const Index&, const Index&) = default;
};

// One position of an access: a single index, a range `a..b` (either end optional), or the
// empty slot (whole axis).
struct Slot {
  enum class Kind { Index, Range, All };
  Kind kind = Kind::All;
  Index index;                 // Kind::Index
  std::optional<Index> start;  // Kind::Range
  std::optional<Index> end;    // Kind::Range
  friend bool operator==(const Slot&, const Slot&) = default;
};

// A variable, optionally with indices: `h`, `W[l]`, `K[l, t-1]`.
struct Ref {
  std::string name;
  std::vector<Index> indices;
  SourceLocation loc;
  friend bool operator==(const Ref&, const Ref&) = default;
};

// A variable with slots: `K`, `K[]`, `K[l]`, `K[l, 0..-3]`, `M[0..r, ]`. `K` has no brackets;
// `K[]` has brackets and no slots (every entry).
struct Access {
  std::string name;
  bool has_brackets = false;
  std::vector<Slot> slots;
  SourceLocation loc;
  bool is_plain_ref() const;  // no slices: every slot is a single index
  friend bool operator==(const Access&, const Access&) = default;
};

struct FixedBound {
  std::string index;
  Bound bound;
  friend bool operator==(const FixedBound&, const FixedBound&) = default;
};

// An attribute the language does not define (`@layout("nhwc")`): kept, with a warning.
struct Attribute {
  std::string name;         // without the '@'
  std::vector<Value> args;  // literals
  SourceLocation loc;
  friend bool operator==(const Attribute&, const Attribute&) = default;
};

// One declaration of a memory section.
struct VarDecl {
  std::string name;
  MemoryKind memory = MemoryKind::Volatile;
  DType dtype = DType::f32;
  std::vector<Dim> dims;               // empty: a scalar
  std::vector<std::string> indices;    // table / prefix indices: `W(l)`, `K(l, t)`
  std::optional<Value> init;           // @init(literal)
  std::optional<std::string> ref;      // @ref("model.name")
  std::optional<std::string> pattern;  // @pattern("W.{l}")
  bool table = false;                  // @table
  std::vector<FixedBound> fixed;       // @fixed(i=1024, j=D)
  std::vector<std::string> auto_dim;   // @auto_dim(i, j)
  std::vector<Attribute> other_attributes;
  SourceLocation loc;
  friend bool operator==(const VarDecl&, const VarDecl&) = default;
};

// An op setting: `alpha=0.5`, `to=f16`, `axes=[0, 1]`, `alpha=slope`.
struct Setting {
  std::string name;
  Value value;
  SourceLocation loc;
  friend bool operator==(const Setting&, const Setting&) = default;
};

// Order matches the trace kinds of cli.md where they exist (Op is "OpExecute" there).
enum class NodeKind {
  Assign,
  Op,
  Transfer,
  CacheRead,
  CacheWrite,
  CacheIncrement,
  CacheDecrement,
  CacheReset,
  Loop,
  Branch,
  Return,
  Barrier,
  Dep,
  Yield,
  Await,
};
std::string_view node_kind_name(NodeKind kind);  // "Assign", "Op", ... (JSON tags)
std::optional<NodeKind> node_kind_from_name(std::string_view name);
// How a node is written: the op's name for Op nodes, else the statement keyword ("assign",
// "cache.read", "loop", ...). What traces show as op_name and what `dep` refers to.
struct Node;
std::string_view node_keyword(const Node& node);

// One node. Fields not used by `kind` stay empty. Which fields each kind uses:
//   Assign          var, dtype, dims                      (`assign var: dtype[dims];`)
//   Op              op, inputs, settings, output          (`op op(inputs, settings) >> output;`)
//   Transfer        inputs[0], output                     (`transfer inputs[0] >> output;`)
//   CacheRead       target, output                        (`cache.read target >> output;`)
//   CacheWrite      inputs[0], target                     (`cache.write inputs[0] >> target;`)
//   CacheIncrement  var, amount (default 1)               (`cache.increment amount var;`)
//   CacheDecrement  var, amount
//   CacheReset      target                                (`cache.reset target;`)
//   Loop            loop_name, var (the index), start, end, body
//   Branch          cond, then_block, else_block          (unconditional: cond and else empty,
//                                                          then_block is the target)
//   Return          names (the step's outputs in entry)
//   Barrier         -
//   Dep             dep_after, dep_before ("matmul", "cache.write", "transfer", ...)
//   Yield, Await    names
// Every kind also has `scope`: the innermost scope of its block that holds it (Block::scopes),
// -1 outside scopes. Nodes inside a scope stay in their block's (or loop body's) node list in
// source order: a scope groups nodes, it does not nest them (dsl.md "Scopes").
// Transfer and CacheRead outputs are plain refs (Access::is_plain_ref); an op output may be a
// table entry, a slice or an auto_dim part.
struct Node {
  NodeKind kind = NodeKind::Barrier;
  SourceLocation loc;
  // Stable id: a name-based (v5) UUID of "block/position path", e.g. "entry/4/0" for the
  // first node of the loop at position 4 of entry. Set by Graph::number_nodes().
  std::string uuid;
  // Trace numbering: position in its block with loop bodies numbered on in source order
  // (cli.md). Set by Graph::number_nodes(); not serialized.
  uint32_t index = 0;

  std::string var;
  DType dtype = DType::f32;
  std::vector<Dim> dims;
  std::string op;
  std::vector<Ref> inputs;
  std::vector<Setting> settings;
  Access output;
  Access target;
  int64_t amount = 1;
  std::string loop_name;
  Bound start;
  Bound end;
  std::vector<Node> body;
  std::string cond;
  std::string then_block;
  std::string else_block;
  std::vector<std::string> names;
  std::string dep_after;
  std::string dep_before;
  int32_t scope = -1;

  friend bool operator==(const Node&, const Node&) = default;
};

// `scope NAME (hints) { ... }` inside a block (dsl.md "Scopes"): a named group of nodes that
// changes no value. Tools use it: fusion never crosses its boundary, hints guide the
// synthesizer and the simulator, traces and timers report time per scope.
struct Scope {
  std::string name;            // as written: `qk`
  int32_t parent = -1;         // the enclosing scope (an earlier entry of Block::scopes), or -1
  std::vector<Setting> hints;  // `fuse=false`, `placement="cpu"`, `no_reorder=true`
  SourceLocation loc;          // the `scope` keyword
  friend bool operator==(const Scope&, const Scope&) = default;
};

// A scope's hints with those of its enclosing scopes applied (the innermost setting wins).
struct ScopeHints {
  bool fuse = true;
  bool no_reorder = false;
  std::string placement;  // empty: the simulator's own backend
};

struct Block {
  std::string name;
  std::vector<Node> nodes;
  // Every scope of the block (loop bodies included) in source order of their `scope` keyword.
  std::vector<Scope> scopes;
  SourceLocation loc;
  friend bool operator==(const Block&, const Block&) = default;
};

// A non-fatal finding of the parser or loader (unknown attributes).
struct Diagnostic {
  SourceLocation loc;
  std::string message;
};

class Graph {
 public:
  std::string origin = "<string>";  // file the graph came from
  std::string source;               // DSL text when parsed (for excerpts); empty otherwise
  std::vector<VarDecl> decls;       // declaration order, across all sections
  std::vector<Block> blocks;        // source order

  // Parses DSL text (dsl.md). Throws oi::Error(ErrorKind::Input) with where = "FILE:LINE:COL"
  // and the source line, a caret and a hint as context. Implemented in openinfer_frontend.
  static Graph parse(std::string_view text, std::string_view origin = "<string>");
  // Reads and parses a .oi file; the path becomes the origin.
  static Graph load(const std::filesystem::path& path);

  const Block* find_block(std::string_view name) const;
  Block* find_block(std::string_view name);
  const VarDecl* find_decl(std::string_view name) const;
  VarDecl* find_decl(std::string_view name);

  // Every node as written: loop nodes and the nodes inside loop bodies included.
  size_t node_count() const;

  // Sets every node's uuid and index from its place in the graph. The parser, the builder
  // and the JSON loader call it; call it again after editing blocks by hand.
  void number_nodes();

  // The source line at `loc` and a caret under its column, each line indented by four
  // spaces, then "    hint: HINT" when hint is non-empty. Empty when the source is unknown.
  std::string excerpt(const SourceLocation& loc, std::string_view hint = {}) const;

  // Warnings for constructs kept but not understood (attributes other than dsl.md's).
  std::vector<Diagnostic> warnings() const;

  friend bool operator==(const Graph& a, const Graph& b) {
    return a.decls == b.decls && a.blocks == b.blocks;
  }
};

// The line of `source` at `loc` and a caret under its column, each indented by four spaces,
// then "    hint: HINT" when hint is non-empty (Graph::excerpt with an explicit source).
std::string source_excerpt(std::string_view source, const SourceLocation& loc,
                           std::string_view hint = {});

// "attention.qk": the names of `scope` and its enclosing scopes, outermost first; "" for -1.
std::string scope_path(const Block& block, int32_t scope);
// Whether scope `inner` is `outer` or lies inside it (-1 is the block itself, outside every
// scope: every scope lies inside it).
bool scope_within(const Block& block, int32_t inner, int32_t outer);
// The hints in force for nodes of `scope` (defaults for -1). Hints of the wrong type are
// ignored here; the validator reports them.
ScopeHints scope_hints(const Block& block, int32_t scope);
// Whether the language defines a scope hint of this name: fuse, no_reorder, placement.
bool is_scope_hint(std::string_view name);

// The name-based UUID of a node path such as "entry/4/0" (deterministic, RFC 4122 v5).
std::string node_uuid(std::string_view block_name, std::string_view position_path);

// Visits every node of `nodes` in source order, loop bodies right after their loop node.
// fn(const Node& node, size_t depth) where depth is 0 for the block's own nodes.
template <class Fn>
void for_each_node(const std::vector<Node>& nodes, Fn&& fn, size_t depth = 0) {
  for (const Node& node : nodes) {
    fn(node, depth);
    if (node.kind == NodeKind::Loop) for_each_node(node.body, fn, depth + 1);
  }
}

}  // namespace oi
