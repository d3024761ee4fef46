// Internal to the validator: the symbol table of a graph and the helpers every check shares.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "openinfer/graph.hpp"
#include "openinfer/op_catalog.hpp"
#include "openinfer/validate.hpp"

namespace oi::validation {

// A variable: a declaration of a memory section or an `assign` temporary.
struct Symbol {
  std::string name;
  DType dtype = DType::f32;
  const std::vector<Dim>* dims = nullptr;
  std::optional<MemoryKind> memory;  // nullopt: an `assign` temporary
  const VarDecl* decl = nullptr;
  const Node* assign = nullptr;
  SourceLocation loc;

  size_t table_indices() const { return decl ? decl->indices.size() : 0; }
  bool is_scalar() const { return dims->empty() && table_indices() == 0; }
  bool is_constant() const { return memory == MemoryKind::Constant; }
  bool is_persistent() const { return memory == MemoryKind::Persistent; }
};

// The loops enclosing a node, outermost first.
using LoopStack = std::vector<const Node*>;

// One read or write of a variable by a node (for the concurrency rules).
struct VarAccess {
  std::string name;
  bool write = false;
  SourceLocation loc;
};

class GraphIndex {
 public:
  GraphIndex(const Graph& graph, const OpCatalog& catalog, Diagnostics& diag);

  const Graph& graph;
  const OpCatalog& catalog;
  Diagnostics& diag;

  const Symbol* symbol(std::string_view name) const;
  const Block* block(std::string_view name) const;
  const Block* entry() const { return block("entry"); }
  // A block whose first node is `await`: run only through a `yield` of entry.
  bool is_consumer(const Block& b) const;
  // A loop of the graph whose index is `name` (for "used outside its loop" errors).
  const Node* any_loop_with_index(std::string_view name) const;

 private:
  void add_symbol(Symbol s);
  std::map<std::string, Symbol, std::less<>> symbols_;
  std::map<std::string, const Block*, std::less<>> blocks_;
  std::map<std::string, const Node*, std::less<>> loops_by_index_;
};

bool in_loop_scope(std::string_view name, const LoopStack& loops);
// "op 'add'", "cache.write", "transfer", ... as used in messages.
std::string describe(const Node& node);
// "LINE:COL" of a location, for messages that point at a second place.
std::string line_col(const SourceLocation& loc);

// Every variable a node reads and writes (names of symbols only; loop bodies and branched-to
// blocks included, the latter through `index`).
void collect_accesses(const GraphIndex& index, const Node& node, std::vector<VarAccess>& out,
                      std::set<std::string>* visited_blocks = nullptr);

// The checks, each reporting into index.diag.
void check_declarations(const GraphIndex& index);
void check_control_flow(const GraphIndex& index);
void check_names(const GraphIndex& index);
void check_nodes(const GraphIndex& index);
void check_concurrency(const GraphIndex& index);
void check_scopes(const GraphIndex& index);
// Appends " (in scope attention.qk)" to each message at a place inside a scope.
void name_scopes(const Graph& graph, Diagnostics& diag);

}  // namespace oi::validation
