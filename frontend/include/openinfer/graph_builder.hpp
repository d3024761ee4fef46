// Builds a Graph in code, node for node the same as the DSL would: the result of
//
//   GraphBuilder b;
//   b.declare(MemoryKind::Dynamic, "x", DType::f32, {dim("B")});
//   b.block("entry").op("relu", {ref("x")}, {}, out("x")).ret();
//   Graph g = b.build();
//
// serializes (without locations) exactly like Graph::parse of
// `dynamic { x: f32[B]; } block entry { op relu(x) >> x; return; }`.
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "openinfer/graph.hpp"

namespace oi {

// Small constructors for the IR's pieces.
Dim dim(int64_t value);
Dim dim(std::string sizevar);
Dim dim_product(std::vector<DimFactor> factors);  // `3*D`: {{3}, {0, "D"}}
Index idx(int64_t value);
Index idx(std::string name, int64_t offset = 0);
Ref ref(std::string name, std::vector<Index> indices = {});
Slot slot_at(Index index);
Slot slot_range(std::optional<Index> start, std::optional<Index> end);
Slot slot_all();
Access out(std::string name);                           // `name`
Access out(std::string name, std::vector<Slot> slots);  // `name[slots]`, `name[]` when empty
Setting setting(std::string name, Value value);
Bound bound(int64_t value);
Bound bound(std::string name);

// Adds nodes to a block or a loop body. Methods return *this for chaining.
class NodeListBuilder {
 public:
  explicit NodeListBuilder(std::vector<Node>& nodes) : nodes_(&nodes) {}
  // A list of `block`'s (so that scopes can be added), its nodes in scope `scope`.
  NodeListBuilder(std::vector<Node>& nodes, Block* block, int32_t scope = -1)
      : nodes_(&nodes), block_(block), scope_(scope) {}

  NodeListBuilder& assign(std::string var, DType dtype, std::vector<Dim> dims = {});
  NodeListBuilder& op(std::string op, std::vector<Ref> inputs, std::vector<Setting> settings,
                      Access output);
  NodeListBuilder& transfer(Ref source, Ref destination);
  NodeListBuilder& cache_read(Access target, Ref destination);
  NodeListBuilder& cache_write(Ref source, Access target);
  NodeListBuilder& cache_increment(std::string var, int64_t amount = 1);
  NodeListBuilder& cache_decrement(std::string var, int64_t amount = 1);
  NodeListBuilder& cache_reset(Access target);
  // `loop name (var in start..end) { body }`: `body` fills the loop's body.
  NodeListBuilder& loop(std::string name, std::string var, Bound start, Bound end,
                        const std::function<void(NodeListBuilder&)>& body);
  NodeListBuilder& branch(std::string cond, std::string then_block, std::string else_block);
  NodeListBuilder& branch(std::string block);  // unconditional
  NodeListBuilder& ret(std::vector<std::string> names = {});
  NodeListBuilder& barrier();
  NodeListBuilder& dep(std::string after, std::string before);
  NodeListBuilder& yield(std::vector<std::string> names);
  NodeListBuilder& await(std::vector<std::string> names);
  // `scope name (hints) { body }` (dsl.md "Scopes"): `body` adds the scope's nodes to this
  // list. Needs a builder of GraphBuilder::block (throws oi::Error(Usage) otherwise).
  NodeListBuilder& scope(std::string name, std::vector<Setting> hints,
                         const std::function<void(NodeListBuilder&)>& body);

 private:
  Node& add(NodeKind kind);
  std::vector<Node>* nodes_;
  Block* block_ = nullptr;
  int32_t scope_ = -1;
};

// Sets attributes of one declaration. Valid until the builder is built.
class DeclBuilder {
 public:
  explicit DeclBuilder(VarDecl& decl) : decl_(&decl) {}
  DeclBuilder& indices(std::vector<std::string> names);
  DeclBuilder& init(Value literal);
  DeclBuilder& ref(std::string model_name);
  DeclBuilder& pattern(std::string pattern);
  DeclBuilder& table();
  DeclBuilder& fixed(std::string index, Bound bound);
  DeclBuilder& auto_dim(std::vector<std::string> indices);
  DeclBuilder& attribute(std::string name, std::vector<Value> args = {});

 private:
  VarDecl* decl_;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string origin = "<builder>");

  DeclBuilder declare(MemoryKind memory, std::string name, DType dtype, std::vector<Dim> dims = {});
  // Starts a new block; its builder stays valid while more blocks are added.
  NodeListBuilder block(std::string name);

  // Throws oi::Error(ErrorKind::Usage) if a literal-only field holds a non-literal value.
  Graph build();

 private:
  std::string origin_;
  std::deque<VarDecl> decls_;
  std::deque<Block> blocks_;
};

}  // namespace oi
