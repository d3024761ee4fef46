// Pass 2: fusion and the schedule. A kernel is a run of consecutive op nodes of one scope, so
// a barrier, dep, cache operation, transfer, loop, branch, yield, await, return or scope
// boundary between two ops always ends the group. Nodes keep their source order except that an
// independent op may move up to join the open group (synth.md "Reordering"): only past other
// ops of the same scope, never in a `no_reorder` scope.
#include <algorithm>
#include <set>

#include "../catalog/setting_value.hpp"
#include "openinfer/broadcast.hpp"
#include "plan_internal.hpp"

namespace oi::synth {
namespace {

enum class OpClass { Elementwise, Matmul, Reduction, Other };

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (!contains(v, s)) v.push_back(s);
}

class Scheduler {
 public:
  explicit Scheduler(Context& c) : c_(c) {}

  void run() {
    collect_accessors();
    const Block* entry = c_.graph.find_block("entry");
    std::vector<const Block*> order;
    if (entry) order.push_back(entry);
    for (const Block& b : c_.graph.blocks)
      if (&b != entry) order.push_back(&b);
    for (const Block* b : order) {
      block_ = b;
      BlockPlan bp;
      bp.name = b->name;
      bp.role = b == entry                                                        ? "entry"
                : (!b->nodes.empty() && b->nodes.front().kind == NodeKind::Await) ? "consumer"
                                                                                  : "branch";
      bp.steps = schedule(b->nodes);
      c_.plan.blocks.push_back(std::move(bp));
    }
    for (PlanKernel& k : c_.plan.kernels) finish_kernel(k);
  }

 private:
  Context& c_;
  const Block* block_ = nullptr;  // the block being scheduled (its scopes)
  uint32_t next_step_ = 0;
  std::map<std::string, std::set<const Node*>> accessors_;  // value -> nodes touching it
  std::map<const Node*, uint32_t> node_step_;               // node -> its step (or kernel step)

  void collect_accessors() {
    for (const Block& b : c_.graph.blocks)
      for_each_node(b.nodes, [&](const Node& n, size_t) {
        std::vector<std::string> reads, writes;
        node_names(n, reads, writes);
        for (const auto* list : {&reads, &writes})
          for (const std::string& name : *list) accessors_[name].insert(&n);
      });
  }

  OpClass classify(const Node& n) const {
    const OpSchema* op = c_.catalog.find(n.op);
    if (!op) return OpClass::Other;
    if (op->name == "matmul") return OpClass::Matmul;
    if (op->category == "reduction") return OpClass::Reduction;
    if (op->shape_rule == "broadcast") return OpClass::Elementwise;
    return OpClass::Other;
  }

  // What a fused loop can index with one counter: a whole fixed-size output, and inputs that
  // are whole fixed-size variables or one entry of a fixed-size table (a prefix table's weight
  // `W[l]`): one array each. Growable tables, slices and @auto_dim parts are not.
  bool plain_operands(const Node& n) {
    auto fixed = [&](const PlanValue* v) {
      return v && v->auto_dim.empty() && v->storage != Storage::Runtime;
    };
    const PlanValue* out = c_.value(n.output.name);
    if (n.output.has_brackets || !fixed(out) || !out->indices.empty()) return false;
    for (const Ref& r : n.inputs) {
      const PlanValue* v = c_.value(r.name);
      if (!fixed(v) || r.indices.size() != v->indices.size()) return false;
    }
    return true;
  }

  bool allows_fusion() const {
    return c_.arch.preferences.prefer_fusion && c_.arch.preferences.max_kernel_ops > 1;
  }

  // Whether `n` may join kernel `k` as its next op (an elementwise op over the same
  // iteration shape that breaks no ordering inside the fused loop).
  bool can_join(const PlanKernel& k, const Node& n) {
    if (k.ops.size() >= c_.arch.preferences.max_kernel_ops) return false;
    if (n.scope != k.ops.front()->scope) return false;  // fusion never crosses a scope boundary
    if (classify(n) != OpClass::Elementwise || !plain_operands(n)) return false;
    const PlanValue* out = c_.value(n.output.name);
    if (out->shape != k.shape) return false;
    for (const Ref& r : n.inputs) {
      auto b = geometry::broadcast_shape(c_.value(r.name)->shape, k.shape);
      if (!b || *b != k.shape) return false;
    }
    std::vector<std::string> written;
    for (const Node* op : k.ops) written.push_back(op->output.name);
    for (const Setting& s : n.settings)  // a setting read from a value the group writes
      if (s.value.kind == Value::Kind::Ident && contains(written, s.value.text)) return false;
    if (k.kind != "elementwise") {
      // An epilogue runs per output element while the head still reads its inputs.
      for (const Ref& r : k.ops.front()->inputs)
        if (r.name == n.output.name) return false;
    }
    return true;
  }

  // An op writing a table access computes its result in the shape its catalog rule gives
  // (spread over the access when that is larger, as the simulator does: dsl.md), where every
  // input is a whole value of a shape known here and every setting a literal.
  std::optional<Dims> table_result_shape(const Node& n) const {
    if (n.output.slots.empty() && !n.output.has_brackets)
      return std::nullopt;  // `B[]`: every entry
    const PlanValue* out = c_.value(n.output.name);
    const OpSchema* op = c_.catalog.find(n.op);
    if (!out || !op || out->indices.empty() || !out->auto_dim.empty()) return std::nullopt;
    for (const Setting& s : n.settings)  // acc= adds into the access in place
      if (s.name == "acc") return std::nullopt;
    const ShapeRuleFn* rule = ShapeRuleRegistry::global().find(op->shape_rule);
    if (!rule) return std::nullopt;
    ShapeRuleContext ctx{*op, {}, out->shape, {}};
    for (const Ref& r : n.inputs) {
      const PlanValue* v = c_.value(r.name);
      if (!v || !r.indices.empty() || !v->indices.empty() || !v->auto_dim.empty() ||
          v->storage == Storage::Runtime)
        return std::nullopt;
      ctx.inputs.push_back(v->shape);
    }
    RuleSettings settings(*op);
    for (const Setting& s : n.settings) {
      if (!op->find_setting(s.name)) continue;
      auto v = catalog_value(s.value);
      if (!v) return std::nullopt;  // known only at run time
      settings.put(s.name, std::move(*v));
    }
    ctx.settings = settings.with_defaults();
    try {
      return (*rule)(ctx);
    } catch (const std::exception&) {
      return std::nullopt;  // the run-time store reports it
    }
  }

  uint32_t open_kernel(const Node& n, OpClass cls) {
    PlanKernel k;
    k.id = static_cast<uint32_t>(c_.plan.kernels.size());
    k.kind = cls == OpClass::Elementwise ? "elementwise"
             : cls == OpClass::Matmul    ? "matmul"
             : cls == OpClass::Reduction ? "reduction"
                                         : "op";
    if (const PlanValue* out = c_.value(n.output.name)) k.shape = out->shape;
    if (auto r = table_result_shape(n)) k.shape = *r;
    k.ops.push_back(&n);
    k.scope = scope_path(*block_, n.scope);
    k.placement = scope_hints(*block_, n.scope).placement;
    c_.plan.kernels.push_back(std::move(k));
    return c_.plan.kernels.back().id;
  }

  static Step::Kind step_kind(NodeKind k) {
    switch (k) {
      case NodeKind::Transfer:
        return Step::Kind::Transfer;
      case NodeKind::CacheRead:
        return Step::Kind::CacheRead;
      case NodeKind::CacheWrite:
        return Step::Kind::CacheWrite;
      case NodeKind::CacheIncrement:
        return Step::Kind::CacheIncrement;
      case NodeKind::CacheDecrement:
        return Step::Kind::CacheDecrement;
      case NodeKind::CacheReset:
        return Step::Kind::CacheReset;
      case NodeKind::Loop:
        return Step::Kind::Loop;
      case NodeKind::Branch:
        return Step::Kind::Branch;
      case NodeKind::Return:
        return Step::Kind::Return;
      case NodeKind::Barrier:
        return Step::Kind::Barrier;
      case NodeKind::Dep:
        return Step::Kind::Dep;
      case NodeKind::Yield:
        return Step::Kind::Yield;
      case NodeKind::Await:
        return Step::Kind::Await;
      default:
        return Step::Kind::Barrier;
    }
  }

  // Whether the ops at order[from..to) may all run after `m` instead of before it: no value
  // one writes is read or written by the other.
  static bool independent(const Node& m, const std::vector<const Node*>& order, size_t from,
                          size_t to) {
    std::vector<std::string> m_reads, m_writes;
    node_names(m, m_reads, m_writes);
    for (size_t i = from; i < to; ++i) {
      std::vector<std::string> reads, writes;
      node_names(*order[i], reads, writes);
      for (const std::string& w : m_writes)
        if (contains(reads, w) || contains(writes, w)) return false;
      for (const std::string& r : m_reads)
        if (contains(writes, r)) return false;
    }
    return true;
  }

  // Moves a later op that can join kernel `k` to order[next], past ops it is independent of
  // (synth.md "Reordering"). Only ops of the kernel's scope are passed, never another node
  // kind (barrier, dep, cache operation, transfer, control flow), and never in a no_reorder
  // scope. Returns whether an op moved.
  bool pull_partner(std::vector<const Node*>& order, size_t next, const PlanKernel& k) {
    const int32_t scope = k.ops.front()->scope;
    if (scope_hints(*block_, scope).no_reorder) return false;
    if (next >= order.size() || can_join(k, *order[next])) return false;
    for (size_t j = next; j < order.size(); ++j) {
      const Node& m = *order[j];
      if (m.kind == NodeKind::Assign) continue;  // a declaration: nothing runs there
      if (m.kind != NodeKind::Op || m.scope != scope) return false;
      if (j > next && can_join(k, m) && independent(m, order, next, j)) {
        std::rotate(order.begin() + static_cast<std::ptrdiff_t>(next),
                    order.begin() + static_cast<std::ptrdiff_t>(j),
                    order.begin() + static_cast<std::ptrdiff_t>(j) + 1);
        return true;
      }
    }
    return false;
  }

  bool fusion_in_scope(const Node& n) const { return scope_hints(*block_, n.scope).fuse; }

  std::vector<Step> schedule(const std::vector<Node>& nodes) {
    std::vector<Step> out;
    std::optional<uint32_t> open;  // the kernel still accepting ops
    std::vector<const Node*> order;
    for (const Node& n : nodes) order.push_back(&n);
    for (size_t i = 0; i < order.size(); ++i) {
      const Node& n = *order[i];
      if (n.kind == NodeKind::Assign) continue;  // a declaration: zero-filled by the plan
      if (n.kind == NodeKind::Op) {
        if (open && can_join(c_.plan.kernels[*open], n)) {
          c_.plan.kernels[*open].ops.push_back(&n);
          node_step_[&n] = out.back().id;
        } else {
          const OpClass cls = classify(n);
          Step s;
          s.kind = Step::Kind::Kernel;
          s.id = next_step_++;
          s.kernel = open_kernel(n, cls);
          node_step_[&n] = s.id;
          out.push_back(std::move(s));
          const bool head = cls != OpClass::Other && plain_operands(n);
          open = head && allows_fusion() && fusion_in_scope(n)
                     ? std::optional<uint32_t>(out.back().kernel)
                     : std::nullopt;
        }
        if (open && pull_partner(order, i + 1, c_.plan.kernels[*open]))
          c_.plan.kernels[*open].reordered = true;
        continue;
      }
      open.reset();
      Step s;
      s.kind = step_kind(n.kind);
      s.id = next_step_++;
      s.node = &n;
      s.scope = scope_path(*block_, n.scope);
      node_step_[&n] = s.id;
      if (n.kind == NodeKind::Loop) s.body = schedule(n.body);
      if (n.kind == NodeKind::Yield) s.tasks = consumers_of(n);
      out.push_back(std::move(s));
    }
    add_dep_constraints(nodes);
    return out;
  }

  // dsl.md: every block whose first node awaits a non-empty subset of the yielded names.
  std::vector<std::string> consumers_of(const Node& yield) const {
    std::vector<std::string> tasks;
    for (const Block& b : c_.graph.blocks) {
      if (b.name == "entry" || b.nodes.empty() || b.nodes.front().kind != NodeKind::Await) continue;
      const auto& want = b.nodes.front().names;
      if (want.empty()) continue;
      if (std::all_of(want.begin(), want.end(),
                      [&](const std::string& w) { return contains(yield.names, w); }))
        tasks.push_back(b.name);
    }
    return tasks;
  }

  void add_dep_constraints(const std::vector<Node>& nodes) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& d = nodes[i];
      if (d.kind != NodeKind::Dep) continue;
      const Node* after = nullptr;
      const Node* before = nullptr;
      for (size_t j = i; j-- > 0;)
        if (node_keyword(nodes[j]) == d.dep_after) {
          after = &nodes[j];
          break;
        }
      for (size_t j = i + 1; j < nodes.size(); ++j)
        if (node_keyword(nodes[j]) == d.dep_before) {
          before = &nodes[j];
          break;
        }
      if (!after || !before) continue;  // the validator reports these
      c_.plan.constraints.push_back(
          {node_step_.at(after), node_step_.at(before),
           "dep after(" + d.dep_after + ") before(" + d.dep_before + ")"});
    }
  }

  // Reads, writes, and the temporaries nothing outside the kernel touches.
  void finish_kernel(PlanKernel& k) {
    std::vector<std::string> written;
    auto read = [&](const std::string& name) {
      if (c_.value(name) && !contains(written, name)) add_unique(k.reads, name);
    };
    bool inplace = k.kind == "elementwise";
    k.rules.clear();
    for (const Node* n : k.ops) {
      std::vector<std::string> reads, writes;
      node_names(*n, reads, writes);
      for (const std::string& r : reads) read(r);
      for (const std::string& w : writes)
        if (c_.value(w)) add_unique(written, w);
      const OpSchema* op = c_.catalog.find(n->op);
      k.rules.push_back(op ? PlanOpRule{op->shape_rule, op->broadcast} : PlanOpRule{});
      const bool acc = std::any_of(n->settings.begin(), n->settings.end(),
                                   [](const Setting& s) { return s.name == "acc"; });
      inplace = inplace && op && op->inplace && !acc;
    }
    k.inplace_ok = inplace;
    const std::set<const Node*> mine(k.ops.begin(), k.ops.end());
    for (const std::string& w : written) {
      PlanValue* v = c_.value(w);
      const auto& who = accessors_[w];
      const bool only_here =
          std::all_of(who.begin(), who.end(), [&](const Node* n) { return mine.count(n) > 0; });
      if (k.ops.size() > 1 && v->storage == Storage::Arena && !contains(k.reads, w) && only_here) {
        v->storage = Storage::Internal;
        v->bytes = 0;
        k.internal.push_back(w);
      } else {
        k.writes.push_back(w);
      }
    }
  }
};

}  // namespace

void build_schedule(Context& c) {
  Scheduler(c).run();
}

}  // namespace oi::synth
