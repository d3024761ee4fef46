// Pass 3: liveness of temporaries, an arena with reused offsets (greedy first fit, largest
// first), in-place reuse for elementwise kernels, and the totals.
//
// Liveness is a backward dataflow over a control-flow graph of entry in which every loop body
// and every block a branch reaches appears once per place it is reached (so a block called
// from two places has two copies): its nodes are the "trace positions" of live_ranges. A value
// occupies its bytes where it is live on entry to a node, or where the node touches it. Loops
// get a back edge, so a value read before it is written in a body stays live over the whole
// loop; the blocks of a branch are alternatives. Whatever the consumers of a `yield` touch is
// held over [yield, the last `await` taking back one of its names]. A temporary that some
// path reads before writing it (zero_fill) is held from the step's start, where it is zeroed.
#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "plan_internal.hpp"

namespace oi::synth {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

// A set of small integers (arena values or trace positions).
class Bits {
 public:
  explicit Bits(size_t n = 0) : words_((n + 63) / 64, 0) {}
  void set(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  bool test(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  bool intersects(const Bits& o) const {
    for (size_t w = 0; w < words_.size(); ++w)
      if (words_[w] & o.words_[w]) return true;
    return false;
  }
  // this |= (a & ~mask) | b; true when it changed.
  bool merge(const Bits& a, const Bits* mask = nullptr) {
    bool changed = false;
    for (size_t w = 0; w < words_.size(); ++w) {
      uint64_t v = words_[w] | (a.words_[w] & (mask ? ~mask->words_[w] : ~uint64_t{0}));
      changed = changed || v != words_[w];
      words_[w] = v;
    }
    return changed;
  }

 private:
  std::vector<uint64_t> words_;
};

// One node of the control-flow graph: a kernel or another step (a loop's header, a branch's
// condition) at one place of the trace.
struct TraceNode {
  int64_t top = 0;  // the entry step it belongs to
  const Step* step = nullptr;
  std::vector<size_t> succ;
  std::vector<size_t> uses;  // arena values read (or partly written)
  std::vector<size_t> defs;  // arena values written whole without being read
};

class MemoryPlanner {
 public:
  explicit MemoryPlanner(Context& c) : c_(c) {}

  void run() {
    for (size_t i = 0; i < c_.plan.values.size(); ++i)
      if (c_.plan.values[i].storage == Storage::Arena) {
        arena_index_[c_.plan.values[i].name] = arena_.size();
        arena_.push_back(&c_.plan.values[i]);
      }
    const BlockPlan* entry = c_.plan.find_block("entry");
    if (entry) {
      trace(*entry);
      liveness();
    }
    for (PlanValue* v : arena_)
      if (v->live_first < 0) {
        v->storage = Storage::Internal;  // never touched: no memory
        v->bytes = 0;
      }
    if (entry) in_place();
    allocate();
    totals();
  }

 private:
  Context& c_;
  std::vector<PlanValue*> arena_;
  std::map<std::string, size_t, std::less<>> arena_index_;
  std::vector<TraceNode> nodes_;
  std::vector<Bits> live_in_, live_out_;
  std::vector<Bits> occupies_;  // per arena value: the trace positions holding its bytes
  std::vector<std::tuple<size_t, size_t, size_t>> forced_;       // (value, from, to) held by yields
  std::vector<std::pair<size_t, const Step*>> yields_, awaits_;  // entry's, at trace positions

  std::optional<size_t> arena_id(const std::string& name) const {
    auto it = arena_index_.find(name);
    if (it == arena_index_.end()) return std::nullopt;
    return it->second;
  }

  // --- the trace ---------------------------------------------------------------------------

  size_t add_node(const Step& s, int64_t top, std::vector<size_t>& pending) {
    TraceNode n;
    n.top = top;
    n.step = &s;
    if (s.kind == Step::Kind::Kernel) {
      const PlanKernel& k = c_.plan.kernels[s.kernel];
      for (const std::string& r : k.reads)
        if (auto id = arena_id(r)) n.uses.push_back(*id);
      for (const std::string& w : k.writes)
        if (auto id = arena_id(w)) (writes_whole(s, w) ? n.defs : n.uses).push_back(*id);
    } else {
      std::vector<std::string> reads, writes;
      node_names(*s.node, reads, writes);
      for (const std::string& r : reads)
        if (auto id = arena_id(r)) n.uses.push_back(*id);
      for (const std::string& w : writes)
        if (auto id = arena_id(w)) (writes_whole(s, w) ? n.defs : n.uses).push_back(*id);
    }
    const size_t id = nodes_.size();
    nodes_.push_back(std::move(n));
    for (size_t p : pending) nodes_[p].succ.push_back(id);
    pending = {id};
    return id;
  }

  // Appends `steps`; `pending` are the nodes the next node follows. In entry (`top` < 0)
  // each step is its own entry position and yields and awaits are collected.
  void sequence(const std::vector<Step>& steps, int64_t top, std::vector<size_t>& pending,
                std::vector<std::string>& stack) {
    for (size_t p = 0; p < steps.size(); ++p) {
      const Step& s = steps[p];
      const int64_t at = top < 0 ? static_cast<int64_t>(p) : top;
      const size_t id = add_node(s, at, pending);
      if (s.kind == Step::Kind::Loop) {
        sequence(s.body, at, pending, stack);
        for (size_t q : pending) nodes_[q].succ.push_back(id);  // the next iteration
        pending = {id};                                         // the exit
      } else if (s.kind == Step::Kind::Branch) {
        std::vector<size_t> exits;
        for (const std::string* name : {&s.node->then_block, &s.node->else_block}) {
          if (name->empty()) continue;
          std::vector<size_t> path = {id};
          block(*name, at, path, stack);
          exits.insert(exits.end(), path.begin(), path.end());
        }
        if (!s.node->cond.empty() && s.node->else_block.empty()) exits.push_back(id);
        pending = exits;
      } else if (top < 0 && s.kind == Step::Kind::Yield) {
        yields_.emplace_back(id, &s);
      } else if (top < 0 && s.kind == Step::Kind::Await) {
        awaits_.emplace_back(id, &s);
      }
    }
  }

  void block(const std::string& name, int64_t top, std::vector<size_t>& pending,
             std::vector<std::string>& stack) {
    const BlockPlan* b = c_.plan.find_block(name);
    if (!b) return;
    if (std::find(stack.begin(), stack.end(), name) != stack.end()) {
      throw std::runtime_error("synth: block '" + name + "' branches to itself");
    }
    stack.push_back(name);
    sequence(b->steps, top, pending, stack);
    stack.pop_back();
  }

  void trace(const BlockPlan& entry) {
    std::vector<size_t> pending;
    std::vector<std::string> stack = {"entry"};
    sequence(entry.steps, -1, pending, stack);
    // Consumers run beside entry between the yield and the last await of its names.
    for (const auto& [y, s] : yields_) {
      size_t end = nodes_.size() - 1;
      for (const auto& [a, as] : awaits_) {
        if (a < y) continue;
        for (const std::string& w : as->node->names)
          if (std::find(s->node->names.begin(), s->node->names.end(), w) != s->node->names.end())
            end = a;
      }
      std::set<std::string> names, seen;
      for (const std::string& t : s->tasks) block_names(t, names, seen);
      for (const std::string& n : s->node->names) names.insert(n);
      for (const std::string& n : names)
        if (auto id = arena_id(n)) {
          forced_.emplace_back(*id, y, end);
          arena_[*id]->zero_fill = true;
        }
    }
  }

  // Whether step `s` writes all of `name` without reading it: then the value's earlier
  // contents are dead there (and assign's step-start zero fill cannot be observed).
  bool writes_whole(const Step& s, const std::string& name) const {
    if (s.kind == Step::Kind::Kernel) {
      const PlanKernel& k = c_.plan.kernels[s.kernel];
      return std::find(k.reads.begin(), k.reads.end(), name) == k.reads.end() &&
             std::all_of(k.ops.begin(), k.ops.end(), [&](const Node* n) {
               return n->output.name != name || !n->output.has_brackets;
             });
    }
    if (s.kind == Step::Kind::Transfer || s.kind == Step::Kind::CacheRead) {
      std::vector<std::string> reads, writes;
      node_names(*s.node, reads, writes);
      return std::find(reads.begin(), reads.end(), name) == reads.end() &&
             s.node->output.name == name && !s.node->output.has_brackets;
    }
    return false;
  }

  void step_names(const Step& s, std::set<std::string>& out, std::set<std::string>& seen) {
    if (s.kind == Step::Kind::Kernel) {
      const PlanKernel& k = c_.plan.kernels[s.kernel];
      out.insert(k.reads.begin(), k.reads.end());
      out.insert(k.writes.begin(), k.writes.end());
      return;
    }
    std::vector<std::string> reads, writes;
    node_names(*s.node, reads, writes);
    out.insert(reads.begin(), reads.end());
    out.insert(writes.begin(), writes.end());
    for (const Step& b : s.body) step_names(b, out, seen);
    if (s.kind == Step::Kind::Branch) {
      for (const std::string* name : {&s.node->then_block, &s.node->else_block})
        if (!name->empty()) block_names(*name, out, seen);
    }
  }

  void block_names(const std::string& name, std::set<std::string>& out,
                   std::set<std::string>& seen) {
    if (!seen.insert(name).second) return;
    if (const BlockPlan* b = c_.plan.find_block(name))
      for (const Step& s : b->steps) step_names(s, out, seen);
  }

  // --- liveness ------------------------------------------------------------------------------

  void liveness() {
    const size_t n = nodes_.size(), m = arena_.size();
    std::vector<Bits> use(n, Bits(m)), def(n, Bits(m));
    for (size_t i = 0; i < n; ++i) {
      for (size_t u : nodes_[i].uses) use[i].set(u);
      for (size_t d : nodes_[i].defs)
        if (!use[i].test(d)) def[i].set(d);
    }
    live_in_.assign(n, Bits(m));
    live_out_.assign(n, Bits(m));
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = n; i-- > 0;) {
        for (size_t s : nodes_[i].succ) live_out_[i].merge(live_in_[s]);
        Bits in(m);
        in.merge(use[i]);
        in.merge(live_out_[i], &def[i]);
        changed = live_in_[i].merge(in) || changed;
      }
    }
    occupies_.assign(m, Bits(n));
    for (size_t v = 0; v < m; ++v) {
      if (n > 0 && live_in_[0].test(v)) arena_[v]->zero_fill = true;  // some path reads it first
      for (size_t i = 0; i < n; ++i)
        if (live_in_[i].test(v) || use[i].test(v) || def[i].test(v)) occupies_[v].set(i);
    }
    for (const auto& [v, from, to] : forced_)
      for (size_t i = from; i <= to; ++i) occupies_[v].set(i);
    for (size_t v = 0; v < m; ++v) {
      PlanValue& pv = *arena_[v];
      int64_t last = -1;
      for (size_t i = 0; i < n; ++i)
        if (occupies_[v].test(i)) last = static_cast<int64_t>(i);
      if (last < 0) continue;
      if (pv.zero_fill)  // zeroed at the step's start: held from there
        for (size_t i = 0; i <= static_cast<size_t>(last); ++i) occupies_[v].set(i);
      pv.live_ranges.clear();
      for (size_t i = 0; i < n; ++i) {
        if (!occupies_[v].test(i)) continue;
        const int64_t pos = static_cast<int64_t>(i);
        if (!pv.live_ranges.empty() && pv.live_ranges.back().second == pos - 1) {
          pv.live_ranges.back().second = pos;
        } else {
          pv.live_ranges.emplace_back(pos, pos);
        }
        pv.live_first = pv.live_first < 0 ? nodes_[i].top : std::min(pv.live_first, nodes_[i].top);
        pv.live_last = std::max(pv.live_last, nodes_[i].top);
      }
    }
  }

  // An elementwise kernel may write its output over an input that dies there (same dtype and
  // shape: element i is read before it is written, and nothing else is touched): wherever both
  // hold bytes is one of the kernel's own trace positions, where the input is not live after
  // and the output is written whole.
  void in_place() {
    std::set<std::string> taken;
    std::map<uint32_t, std::vector<size_t>> instances;  // kernel id -> trace positions
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].step->kind == Step::Kind::Kernel)
        instances[nodes_[i].step->kernel].push_back(i);
    for (const auto& [kid, at] : instances) {
      const PlanKernel& k = c_.plan.kernels[kid];
      if (!k.inplace_ok) continue;
      Bits mine(nodes_.size());
      for (size_t i : at) mine.set(i);
      for (const std::string& w : k.writes) {
        auto wo = arena_id(w);
        if (!wo) continue;
        PlanValue* out = arena_[*wo];
        if (out->storage != Storage::Arena || out->zero_fill) continue;
        for (const std::string& r : k.reads) {
          auto ri = arena_id(r);
          if (!ri || *ri == *wo || taken.count(r)) continue;
          PlanValue* in = arena_[*ri];
          if (in->storage != Storage::Arena || in->dtype != out->dtype || in->shape != out->shape ||
              in->shape != k.shape)
            continue;
          bool ok = true;
          for (size_t i : at) {
            const auto& defs = nodes_[i].defs;
            ok = ok && !live_out_[i].test(*ri) &&
                 std::find(defs.begin(), defs.end(), *wo) != defs.end();
          }
          for (size_t i = 0; ok && i < nodes_.size(); ++i)
            ok = !(occupies_[*ri].test(i) && occupies_[*wo].test(i)) || mine.test(i);
          if (!ok) continue;
          out->shares = r;
          taken.insert(r);
          break;
        }
      }
    }
  }

  bool live_together(const PlanValue& a, const PlanValue& b) const {
    auto ia = arena_id(a.name), ib = arena_id(b.name);
    return occupies_.empty() || !ia || !ib
               ? a.live_first <= b.live_last && b.live_first <= a.live_last
               : occupies_[*ia].intersects(occupies_[*ib]);
  }
  static bool partners(const PlanValue& a, const PlanValue& b) {
    return a.shares == b.name || b.shares == a.name;
  }

  void allocate() {
    const uint64_t align = c_.arch.preferences.arena_alignment;
    std::vector<PlanValue*> order;
    for (PlanValue& v : c_.plan.values)
      if (v.storage == Storage::Arena) order.push_back(&v);
    std::stable_sort(order.begin(), order.end(), [](const PlanValue* a, const PlanValue* b) {
      if (a->bytes != b->bytes) return a->bytes > b->bytes;
      return a->live_first < b->live_first;
    });
    std::vector<PlanValue*> placed;
    // Live at the same time and sharing bytes is allowed only for an in-place pair at the
    // same offset.
    auto fits = [&](const PlanValue& v, uint64_t off) {
      for (const PlanValue* p : placed)
        if (live_together(v, *p) && off < p->offset + p->bytes && p->offset < off + v.bytes &&
            !(partners(v, *p) && off == p->offset))
          return false;
      return true;
    };
    uint64_t arena = 0;
    for (PlanValue* v : order) {
      std::optional<uint64_t> chosen;
      for (const PlanValue* p : placed)
        if (partners(*v, *p) && fits(*v, p->offset)) chosen = p->offset;
      if (!chosen) {
        std::vector<const PlanValue*> busy;
        for (const PlanValue* p : placed)
          if (live_together(*v, *p)) busy.push_back(p);
        std::sort(busy.begin(), busy.end(),
                  [](const PlanValue* a, const PlanValue* b) { return a->offset < b->offset; });
        uint64_t off = 0;
        for (const PlanValue* p : busy) {
          if (off + v->bytes <= p->offset) break;
          off = std::max(off, align_up(p->offset + p->bytes, align));
        }
        chosen = off;
      }
      v->offset = *chosen;
      arena = std::max(arena, align_up(v->offset + v->bytes, align));
      placed.push_back(v);
    }
    for (PlanValue* v : order)  // a pair that did not land together is an ordinary placement
      if (v->shares) {
        const PlanValue* p = c_.value(*v->shares);
        if (!p || p->offset != v->offset) v->shares.reset();
      }
    c_.plan.memory.arena_bytes = arena;
    c_.plan.memory.alignment = static_cast<uint32_t>(align);
  }

  void totals() {
    MemoryPlan& m = c_.plan.memory;
    for (const PlanValue& v : c_.plan.values) {
      switch (v.storage) {
        case Storage::Dynamic:
          m.dynamic_bytes += v.bytes;
          break;
        case Storage::Constant:
          m.constant_bytes += v.bytes;
          break;
        case Storage::Persistent:
          m.persistent_bytes += v.bytes;
          break;
        case Storage::Step:
          m.step_bytes += v.bytes;
          break;
        case Storage::Runtime:
          m.runtime_sized.push_back(v.name);
          break;
        case Storage::Arena:
        case Storage::Internal:
          break;
      }
      // Each temporary at its own aligned address: what an allocator without a plan uses.
      if (v.memory == "temporary")
        m.temporary_bytes += align_up(v.unfused_bytes, c_.arch.preferences.arena_alignment);
    }
    const uint64_t fixed = m.dynamic_bytes + m.constant_bytes + m.persistent_bytes + m.step_bytes;
    m.peak_bytes = fixed + m.arena_bytes;
    m.unplanned_bytes = fixed + m.temporary_bytes;
  }
};

}  // namespace

void plan_memory(Context& c) {
  MemoryPlanner(c).run();
}

}  // namespace oi::synth
