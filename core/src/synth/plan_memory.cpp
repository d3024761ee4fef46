// Pass 3: liveness of temporaries over entry's schedule, an arena with reused offsets (greedy
// first fit, largest first), in-place reuse for elementwise kernels, and the totals.
//
// Positions are entry's top-level steps 0..N-1. Everything a loop, a branch (the blocks it
// reaches) or a yield (its consumers, until the await that ends them) touches counts at that
// step, or over [yield, await]: coarse, but it can never let two live values share bytes.
#include <algorithm>
#include <set>

#include "plan_internal.hpp"

namespace oi::synth {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

class MemoryPlanner {
 public:
  explicit MemoryPlanner(Context& c) : c_(c) {}

  void run() {
    const BlockPlan* entry = c_.plan.find_block("entry");
    if (entry) liveness(*entry);
    for (PlanValue& v : c_.plan.values)
      if (v.storage == Storage::Arena && v.live_first < 0) {
        v.storage = Storage::Internal;  // never touched: no memory
        v.bytes = 0;
      }
    if (entry) in_place(*entry);
    allocate();
    totals();
  }

 private:
  Context& c_;

  // --- names a step touches --------------------------------------------------------------

  void step_names(const Step& s, std::set<std::string>& out, std::set<std::string>& seen_blocks) {
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
    for (const Step& b : s.body) step_names(b, out, seen_blocks);
    if (s.kind == Step::Kind::Branch) {
      for (const std::string* name : {&s.node->then_block, &s.node->else_block})
        if (!name->empty()) block_names(*name, out, seen_blocks);
    }
  }

  void block_names(const std::string& name, std::set<std::string>& out,
                   std::set<std::string>& seen) {
    if (!seen.insert(name).second) return;
    if (const BlockPlan* b = c_.plan.find_block(name))
      for (const Step& s : b->steps) step_names(s, out, seen);
  }

  void touch(const std::string& name, int64_t first, int64_t last) {
    PlanValue* v = c_.value(name);
    if (!v || v->storage != Storage::Arena) return;
    v->live_first = v->live_first < 0 ? first : std::min(v->live_first, first);
    v->live_last = std::max(v->live_last, last);
  }

  void liveness(const BlockPlan& entry) {
    const int64_t n = static_cast<int64_t>(entry.steps.size());
    for (int64_t p = 0; p < n; ++p) {
      const Step& s = entry.steps[p];
      std::set<std::string> names, seen;
      step_names(s, names, seen);
      for (const std::string& name : names) {
        PlanValue* v = c_.value(name);
        if (v && v->storage == Storage::Arena && v->live_first < 0)
          v->zero_fill = !fully_written_first(s, name);
        touch(name, p, p);
      }
      if (s.kind != Step::Kind::Yield) continue;
      int64_t end = n - 1;  // the last await in entry that takes back a yielded name
      for (int64_t q = p + 1; q < n; ++q) {
        const Step& a = entry.steps[q];
        if (a.kind != Step::Kind::Await) continue;
        for (const std::string& w : a.node->names)
          if (std::find(s.node->names.begin(), s.node->names.end(), w) != s.node->names.end())
            end = q;
      }
      std::set<std::string> task_names, task_seen;
      for (const std::string& t : s.tasks) block_names(t, task_names, task_seen);
      for (const std::string& name : s.node->names) task_names.insert(name);
      for (const std::string& name : task_names) {
        PlanValue* v = c_.value(name);
        if (v && v->storage == Storage::Arena && v->live_first < 0) v->zero_fill = true;
        touch(name, p, end);
      }
    }
  }

  // Whether the first step touching `name` writes all of it without reading it first: then
  // the step-start zero fill of `assign` cannot be observed and is skipped.
  bool fully_written_first(const Step& s, const std::string& name) const {
    if (s.kind == Step::Kind::Kernel) {
      const PlanKernel& k = c_.plan.kernels[s.kernel];
      return std::find(k.reads.begin(), k.reads.end(), name) == k.reads.end() &&
             std::find(k.writes.begin(), k.writes.end(), name) != k.writes.end() &&
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

  // An elementwise kernel may write its output over an input that dies there (same dtype and
  // shape: element i is read before it is written, and nothing else is touched).
  void in_place(const BlockPlan& entry) {
    std::set<std::string> taken;
    for (size_t p = 0; p < entry.steps.size(); ++p) {
      const Step& s = entry.steps[p];
      if (s.kind != Step::Kind::Kernel) continue;
      const PlanKernel& k = c_.plan.kernels[s.kernel];
      if (!k.inplace_ok) continue;
      const int64_t pos = static_cast<int64_t>(p);
      for (const std::string& w : k.writes) {
        PlanValue* out = c_.value(w);
        if (out->storage != Storage::Arena || out->live_first != pos || out->zero_fill) continue;
        for (const std::string& r : k.reads) {
          PlanValue* in = c_.value(r);
          if (!in || in == out || in->storage != Storage::Arena || in->live_last != pos ||
              in->dtype != out->dtype || in->shape != out->shape || in->shape != k.shape ||
              taken.count(r))
            continue;
          out->shares = r;
          taken.insert(r);
          break;
        }
      }
    }
  }

  static bool live_together(const PlanValue& a, const PlanValue& b) {
    return a.live_first <= b.live_last && b.live_first <= a.live_last;
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
