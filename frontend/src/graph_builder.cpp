// The programmatic graph builder.
#include "openinfer/graph_builder.hpp"

#include "openinfer/error.hpp"

namespace oi {

Dim dim(int64_t value) {
  return Dim{{DimFactor{value, {}}}};
}
Dim dim(std::string sizevar) {
  return Dim{{DimFactor{0, std::move(sizevar)}}};
}
Dim dim_product(std::vector<DimFactor> factors) {
  return Dim{std::move(factors)};
}
Index idx(int64_t value) {
  return Index{{}, value};
}
Index idx(std::string name, int64_t offset) {
  return Index{std::move(name), offset};
}
Ref ref(std::string name, std::vector<Index> indices) {
  return Ref{std::move(name), std::move(indices), {}};
}
Slot slot_at(Index index) {
  return Slot{Slot::Kind::Index, std::move(index), {}, {}};
}
Slot slot_range(std::optional<Index> start, std::optional<Index> end) {
  return Slot{Slot::Kind::Range, {}, std::move(start), std::move(end)};
}
Slot slot_all() {
  return Slot{};
}
Access out(std::string name) {
  return Access{std::move(name), false, {}, {}};
}
Access out(std::string name, std::vector<Slot> slots) {
  return Access{std::move(name), true, std::move(slots), {}};
}
Setting setting(std::string name, Value value) {
  return Setting{std::move(name), std::move(value), {}};
}
Bound bound(int64_t value) {
  return Bound{value, {}};
}
Bound bound(std::string name) {
  return Bound{0, std::move(name)};
}

namespace {

Access as_access(Ref r) {
  Access a{std::move(r.name), !r.indices.empty(), {}, std::move(r.loc)};
  for (Index& index : r.indices) a.slots.push_back(slot_at(std::move(index)));
  return a;
}

}  // namespace

// ---- nodes -----------------------------------------------------------------------------------

Node& NodeListBuilder::add(NodeKind kind) {
  Node& node = nodes_->emplace_back();
  node.kind = kind;
  node.scope = scope_;
  return node;
}

NodeListBuilder& NodeListBuilder::assign(std::string var, DType dtype, std::vector<Dim> dims) {
  Node& node = add(NodeKind::Assign);
  node.var = std::move(var);
  node.dtype = dtype;
  node.dims = std::move(dims);
  return *this;
}

NodeListBuilder& NodeListBuilder::op(std::string op, std::vector<Ref> inputs,
                                     std::vector<Setting> settings, Access output) {
  Node& node = add(NodeKind::Op);
  node.op = std::move(op);
  node.inputs = std::move(inputs);
  node.settings = std::move(settings);
  node.output = std::move(output);
  return *this;
}

NodeListBuilder& NodeListBuilder::transfer(Ref source, Ref destination) {
  Node& node = add(NodeKind::Transfer);
  node.inputs.push_back(std::move(source));
  node.output = as_access(std::move(destination));
  return *this;
}

NodeListBuilder& NodeListBuilder::cache_read(Access target, Ref destination) {
  Node& node = add(NodeKind::CacheRead);
  node.target = std::move(target);
  node.output = as_access(std::move(destination));
  return *this;
}

NodeListBuilder& NodeListBuilder::cache_write(Ref source, Access target) {
  Node& node = add(NodeKind::CacheWrite);
  node.inputs.push_back(std::move(source));
  node.target = std::move(target);
  return *this;
}

NodeListBuilder& NodeListBuilder::cache_increment(std::string var, int64_t amount) {
  Node& node = add(NodeKind::CacheIncrement);
  node.var = std::move(var);
  node.amount = amount;
  return *this;
}

NodeListBuilder& NodeListBuilder::cache_decrement(std::string var, int64_t amount) {
  Node& node = add(NodeKind::CacheDecrement);
  node.var = std::move(var);
  node.amount = amount;
  return *this;
}

NodeListBuilder& NodeListBuilder::cache_reset(Access target) {
  add(NodeKind::CacheReset).target = std::move(target);
  return *this;
}

NodeListBuilder& NodeListBuilder::loop(std::string name, std::string var, Bound start, Bound end,
                                       const std::function<void(NodeListBuilder&)>& body) {
  Node& node = add(NodeKind::Loop);
  node.loop_name = std::move(name);
  node.var = std::move(var);
  node.start = std::move(start);
  node.end = std::move(end);
  // Build the body in a separate vector: `node` may move if the body adds to this list.
  std::vector<Node> nodes;
  NodeListBuilder body_builder(nodes, block_, scope_);
  body(body_builder);
  nodes_->back().body = std::move(nodes);
  return *this;
}

NodeListBuilder& NodeListBuilder::scope(std::string name, std::vector<Setting> hints,
                                        const std::function<void(NodeListBuilder&)>& body) {
  if (block_ == nullptr) {
    throw Error(ErrorKind::Usage, "NodeListBuilder::scope needs a builder of GraphBuilder::block");
  }
  block_->scopes.push_back(Scope{std::move(name), scope_, std::move(hints), {}});
  NodeListBuilder inner(*nodes_, block_, static_cast<int32_t>(block_->scopes.size() - 1));
  body(inner);
  return *this;
}

NodeListBuilder& NodeListBuilder::branch(std::string cond, std::string then_block,
                                         std::string else_block) {
  Node& node = add(NodeKind::Branch);
  node.cond = std::move(cond);
  node.then_block = std::move(then_block);
  node.else_block = std::move(else_block);
  return *this;
}

NodeListBuilder& NodeListBuilder::branch(std::string block) {
  add(NodeKind::Branch).then_block = std::move(block);
  return *this;
}

NodeListBuilder& NodeListBuilder::ret(std::vector<std::string> names) {
  add(NodeKind::Return).names = std::move(names);
  return *this;
}

NodeListBuilder& NodeListBuilder::barrier() {
  add(NodeKind::Barrier);
  return *this;
}

NodeListBuilder& NodeListBuilder::dep(std::string after, std::string before) {
  Node& node = add(NodeKind::Dep);
  node.dep_after = std::move(after);
  node.dep_before = std::move(before);
  return *this;
}

NodeListBuilder& NodeListBuilder::yield(std::vector<std::string> names) {
  add(NodeKind::Yield).names = std::move(names);
  return *this;
}

NodeListBuilder& NodeListBuilder::await(std::vector<std::string> names) {
  add(NodeKind::Await).names = std::move(names);
  return *this;
}

// ---- declarations ----------------------------------------------------------------------------

DeclBuilder& DeclBuilder::indices(std::vector<std::string> names) {
  decl_->indices = std::move(names);
  return *this;
}
DeclBuilder& DeclBuilder::init(Value literal) {
  decl_->init = std::move(literal);
  return *this;
}
DeclBuilder& DeclBuilder::ref(std::string model_name) {
  decl_->ref = std::move(model_name);
  return *this;
}
DeclBuilder& DeclBuilder::pattern(std::string pattern) {
  decl_->pattern = std::move(pattern);
  return *this;
}
DeclBuilder& DeclBuilder::table() {
  decl_->table = true;
  return *this;
}
DeclBuilder& DeclBuilder::fixed(std::string index, Bound bound) {
  decl_->fixed.push_back({std::move(index), std::move(bound)});
  return *this;
}
DeclBuilder& DeclBuilder::auto_dim(std::vector<std::string> indices) {
  decl_->auto_dim = std::move(indices);
  return *this;
}
DeclBuilder& DeclBuilder::attribute(std::string name, std::vector<Value> args) {
  decl_->other_attributes.push_back({std::move(name), std::move(args), {}});
  return *this;
}

// ---- graph -----------------------------------------------------------------------------------

GraphBuilder::GraphBuilder(std::string origin) : origin_(std::move(origin)) {}

DeclBuilder GraphBuilder::declare(MemoryKind memory, std::string name, DType dtype,
                                  std::vector<Dim> dims) {
  VarDecl& decl = decls_.emplace_back();
  decl.name = std::move(name);
  decl.memory = memory;
  decl.dtype = dtype;
  decl.dims = std::move(dims);
  return DeclBuilder(decl);
}

NodeListBuilder GraphBuilder::block(std::string name) {
  Block& block = blocks_.emplace_back();
  block.name = std::move(name);
  return NodeListBuilder(block.nodes, &block);
}

Graph GraphBuilder::build() {
  Graph graph;
  graph.origin = origin_;
  for (VarDecl& decl : decls_) {
    if (decl.init && !decl.init->is_literal()) {
      throw Error(ErrorKind::Usage, "@init of '" + decl.name + "' must be a literal");
    }
    for (const Attribute& attribute : decl.other_attributes) {
      for (const Value& arg : attribute.args) {
        if (!arg.is_literal()) {
          throw Error(ErrorKind::Usage, "arguments of @" + attribute.name + " on '" + decl.name +
                                            "' must be literals");
        }
      }
    }
    graph.decls.push_back(decl);
  }
  graph.blocks.assign(blocks_.begin(), blocks_.end());
  graph.number_nodes();
  return graph;
}

}  // namespace oi
