// Level 1 name resolution: variables, loop indices and their scope, table index counts.
#include "graph_index.hpp"

namespace oi::validation {
namespace {

class NameChecker {
 public:
  explicit NameChecker(const GraphIndex& index) : index_(index), diag_(index.diag) {}

  void check_block(const Block& b) {
    LoopStack loops;
    check_nodes(b.nodes, loops);
  }

 private:
  const GraphIndex& index_;
  Diagnostics& diag_;

  // A name where a variable must stand (an op input or output, a cache target, ...).
  const Symbol* variable(const std::string& name, const SourceLocation& loc, bool write,
                         const LoopStack& loops) {
    if (const Symbol* s = index_.symbol(name)) return s;
    if (in_loop_scope(name, loops))
      diag_.error(loc, write ? "loop index '" + name + "' is read-only"
                             : "'" + name + "' is a loop index, not a variable");
    else
      undefined(name, loc, "variable");
    return nullptr;
  }

  void undefined(const std::string& name, const SourceLocation& loc, const std::string& what) {
    if (const Node* loop = index_.any_loop_with_index(name))
      diag_.error(loc, "loop index '" + name + "' is used outside its loop '" + loop->loop_name +
                           "' (" + line_col(loop->loc) + ")");
    else
      diag_.error(loc, "undefined " + what + " '" + name + "'");
  }

  // A name in an index, a loop bound or a setting: a loop index in scope, a scalar variable,
  // or else a size variable (resolved against the model at level 2).
  void scalar_name(const std::string& name, const SourceLocation& loc, const std::string& where,
                   bool setting, const LoopStack& loops) {
    const Symbol* s = index_.symbol(name);
    if (in_loop_scope(name, loops)) return;  // the loop index wins (warned at the loop)
    if (s) {
      if (!s->is_scalar())
        diag_.error(loc, where + " '" + name + "' must be a scalar, not a tensor");
      else if (setting ? !s->is_constant() : !(s->is_constant() || s->is_persistent()))
        diag_.error(loc, where + " '" + name + "' must be a scalar of " +
                             (setting ? "constant" : "constant or persistent") + " memory");
      else if (!setting && !is_integer(s->dtype))
        diag_.error(loc, where + " '" + name + "' must have an integer dtype, not " +
                             std::string(dtype_name(s->dtype)));
      return;
    }
    if (index_.any_loop_with_index(name)) undefined(name, loc, "name");
  }

  void index_name(const Index& i, const SourceLocation& loc, const LoopStack& loops) {
    if (!i.is_literal()) scalar_name(i.name, loc, "index", false, loops);
  }

  void check_index_count(const Symbol& s, size_t count, bool has_brackets,
                         const SourceLocation& loc) {
    const size_t declared = s.table_indices();
    if (declared == 0 && has_brackets)
      diag_.error(loc, "'" + s.name + "' is not a table and takes no indices");
    else if (count > declared)
      diag_.error(loc, "'" + s.name + "' has " + std::to_string(declared) + " ind" +
                           (declared == 1 ? "ex" : "ices") + " but is accessed with " +
                           std::to_string(count));
  }

  void ref(const Ref& r, bool write, const LoopStack& loops) {
    const Symbol* s = variable(r.name, r.loc, write, loops);
    if (s) check_index_count(*s, r.indices.size(), !r.indices.empty(), r.loc);
    for (const auto& i : r.indices) index_name(i, r.loc, loops);
  }

  void access(const Access& a, bool write, const LoopStack& loops) {
    const Symbol* s = variable(a.name, a.loc, write, loops);
    if (s) check_index_count(*s, a.slots.size(), a.has_brackets, a.loc);
    for (const auto& slot : a.slots) {
      if (slot.kind == Slot::Kind::Index) index_name(slot.index, a.loc, loops);
      if (slot.start) index_name(*slot.start, a.loc, loops);
      if (slot.end) index_name(*slot.end, a.loc, loops);
    }
  }

  void check_nodes(const std::vector<Node>& nodes, LoopStack& loops) {
    for (const Node& n : nodes) check_node(n, loops);
  }

  void check_node(const Node& n, LoopStack& loops) {
    switch (n.kind) {
      case NodeKind::Op:
        for (const auto& in : n.inputs) ref(in, false, loops);
        for (const auto& s : n.settings)
          if (s.value.kind == Value::Kind::Ident)
            scalar_name(s.value.text, s.loc.line ? s.loc : n.loc,
                        "setting '" + s.name + "' of op '" + n.op + "' names", true, loops);
        access(n.output, true, loops);
        break;
      case NodeKind::Transfer:
      case NodeKind::CacheWrite:
        for (const auto& in : n.inputs) ref(in, false, loops);
        access(n.kind == NodeKind::Transfer ? n.output : n.target, true, loops);
        break;
      case NodeKind::CacheRead:
        access(n.target, false, loops);
        access(n.output, true, loops);
        break;
      case NodeKind::CacheReset:
        access(n.target, true, loops);
        break;
      case NodeKind::CacheIncrement:
      case NodeKind::CacheDecrement:
        variable(n.var, n.loc, true, loops);
        break;
      case NodeKind::Branch:
        if (!n.cond.empty()) {
          const Symbol* c = variable(n.cond, n.loc, false, loops);
          if (c && (c->dtype != DType::boolean || !c->is_scalar()))
            diag_.error(n.loc, "branch condition '" + n.cond + "' must be a bool scalar");
        }
        break;
      case NodeKind::Return:
      case NodeKind::Yield:
      case NodeKind::Await:
        for (const auto& name : n.names) variable(name, n.loc, false, loops);
        break;
      case NodeKind::Loop:
        for (const Bound* b : {&n.start, &n.end})
          if (b->is_name()) scalar_name(b->name, n.loc, "loop bound", false, loops);
        if (in_loop_scope(n.var, loops))
          diag_.error(n.loc, "loop index '" + n.var + "' of loop '" + n.loop_name +
                                 "' shadows the index of an enclosing loop");
        else if (index_.symbol(n.var))
          diag_.warning(n.loc,
                        "loop index '" + n.var + "' hides the declared variable '" + n.var + "'");
        loops.push_back(&n);
        check_nodes(n.body, loops);
        loops.pop_back();
        break;
      default:
        break;
    }
  }
};

}  // namespace

void check_names(const GraphIndex& index) {
  NameChecker checker(index);
  for (const auto& b : index.graph.blocks) checker.check_block(b);
}

}  // namespace oi::validation
