// Level 1 checks of yield/await (dsl.md "Concurrency"): consumers, their terminators, awaits
// in entry, and data races between code that runs at the same time, reported at both places.
#include <algorithm>
#include <set>

#include "graph_index.hpp"

namespace oi::validation {
namespace {

using NameSet = std::set<std::string>;

std::string join(const NameSet& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

bool subset(const NameSet& a, const NameSet& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

// What one piece of concurrently running code touches, by variable.
struct Footprint {
  std::string who;                                      // "block 'b1'", "block 'entry'"
  std::map<std::string, SourceLocation> reads, writes;  // first place of each
  void add(const std::vector<VarAccess>& accesses) {
    for (const auto& a : accesses) (a.write ? writes : reads).emplace(a.name, a.loc);
  }
};

// A consumer started by one yield of entry; it runs until entry's first await of one of W.
struct Run {
  const Block* block;
  NameSet awaited;
  size_t start, end;  // entry positions: the yield, and the await that waits for it
  Footprint footprint;
};

class ConcurrencyChecker {
 public:
  explicit ConcurrencyChecker(const GraphIndex& index) : index_(index), diag_(index.diag) {}

  void run() {
    check_block_shapes();
    const Block* entry = index_.entry();
    if (!entry) return;
    const auto& nodes = entry->nodes;
    std::vector<Run> runs;
    std::set<const Block*> started;
    for (size_t p = 0; p < nodes.size(); ++p) {
      if (nodes[p].kind == NodeKind::Await) check_entry_await(nodes, p);
      if (nodes[p].kind != NodeKind::Yield) continue;
      const NameSet yielded(nodes[p].names.begin(), nodes[p].names.end());
      bool consumed = false;
      for (const Block* c : consumers_) {
        NameSet w = awaited_by(*c);
        if (!subset(w, yielded)) continue;
        consumed = true;
        started.insert(c);
        Run r{c, w, p, end_of_window(nodes, p, w), {"block '" + c->name + "'", {}, {}}};
        for (size_t i = 1; i + 1 < c->nodes.size(); ++i) {
          std::vector<VarAccess> acc;
          collect_accesses(index_, c->nodes[i], acc);
          r.footprint.add(acc);
        }
        runs.push_back(std::move(r));
      }
      if (!consumed)
        diag_.error(nodes[p].loc, "yield of " + join(yielded) +
                                      " has no consumer (no block starts with an await of them)");
      check_yielded_untouched(nodes, p, yielded);
    }
    for (const Block* c : consumers_)
      if (!started.count(c))
        diag_.error(c->nodes.front().loc, "block '" + c->name + "' awaits " + join(awaited_by(*c)) +
                                              " but no yield in entry hands them over");
    for (size_t a = 0; a < runs.size(); ++a) {
      check_against_entry(nodes, runs[a]);
      for (size_t b = a + 1; b < runs.size(); ++b) {
        if (runs[a].block == runs[b].block) continue;
        if (runs[a].start < runs[b].end && runs[b].start < runs[a].end)
          check_pair(runs[a], runs[b]);
      }
    }
  }

 private:
  const GraphIndex& index_;
  Diagnostics& diag_;
  std::vector<const Block*> consumers_;
  std::set<std::pair<std::string, std::string>> reported_;

  static NameSet awaited_by(const Block& c) {
    return NameSet(c.nodes.front().names.begin(), c.nodes.front().names.end());
  }

  // Consumers start with await and end with yield of the same set; await/yield appear nowhere else
  // outside entry.
  void check_block_shapes() {
    for (const auto& b : index_.graph.blocks) {
      if (b.name == "entry") continue;
      const bool consumer = index_.is_consumer(b);
      if (consumer) consumers_.push_back(&b);
      for (size_t i = 0; i < b.nodes.size(); ++i) {
        const Node& n = b.nodes[i];
        if (n.kind == NodeKind::Await && i != 0)
          diag_.error(n.loc, "await in block '" + b.name + "' must be its first node");
        if (n.kind == NodeKind::Yield && !consumer)
          diag_.error(n.loc, "yield in block '" + b.name +
                                 "', which is not a consumer (a consumer starts with await)");
      }
      if (!consumer) continue;
      const Node& last = b.nodes.back();
      const NameSet w = awaited_by(b);
      if (last.kind != NodeKind::Yield || NameSet(last.names.begin(), last.names.end()) != w)
        diag_.error(b.nodes.size() > 1 ? last.loc : b.loc, "consumer block '" + b.name +
                                                               "' must end with 'yield " + join(w) +
                                                               ";' (the variables it awaits)");
    }
  }

  // The entry position of the first await naming any of `w` after `from` (size when none).
  static size_t end_of_window(const std::vector<Node>& nodes, size_t from, const NameSet& w) {
    for (size_t i = from + 1; i < nodes.size(); ++i)
      if (nodes[i].kind == NodeKind::Await)
        for (const auto& n : nodes[i].names)
          if (w.count(n)) return i;
    return nodes.size();
  }

  void check_entry_await(const std::vector<Node>& nodes, size_t p) {
    for (const auto& name : nodes[p].names) {
      bool pending = false;  // yielded and not yet awaited
      for (size_t i = 0; i < p; ++i) {
        const auto& ns = nodes[i].names;
        bool named = std::find(ns.begin(), ns.end(), name) != ns.end();
        if (named && nodes[i].kind == NodeKind::Yield) pending = true;
        if (named && nodes[i].kind == NodeKind::Await) pending = false;
      }
      if (!pending)
        diag_.error(nodes[p].loc,
                    "await of '" + name + "' in entry without an earlier yield of it");
    }
  }

  // Entry may not touch a yielded variable until it awaits it, and must await it before return.
  void check_yielded_untouched(const std::vector<Node>& nodes, size_t p, const NameSet& yielded) {
    for (const auto& x : yielded) {
      size_t end = end_of_window(nodes, p, {x});
      if (end == nodes.size())
        diag_.error(nodes[p].loc, "'" + x + "' is yielded here but never awaited again in entry");
      for (size_t i = p + 1; i < end; ++i) {
        std::vector<VarAccess> acc;
        collect_accesses(index_, nodes[i], acc);
        for (const auto& a : acc)
          if (a.name == x) {
            diag_.error(a.loc, "entry " + std::string(a.write ? "writes" : "reads") + " '" + x +
                                   "' between its yield at " + line_col(nodes[p].loc) +
                                   " and its await");
            break;
          }
      }
    }
  }

  void race(const std::string& var, const std::string& who1, bool write1, const SourceLocation& at1,
            const std::string& who2, bool write2, const SourceLocation& at2) {
    auto key = std::make_pair(var + "@" + line_col(at1), line_col(at2));
    if (!reported_.insert(key).second) return;
    auto verb = [](bool w) { return w ? "writes" : "reads"; };
    diag_.error(at1, "data race on '" + var + "': " + who1 + " " + verb(write1) +
                         " it here while " + who2 + " " + verb(write2) + " it at " + line_col(at2) +
                         " (they run at the same time)");
    diag_.error(at2, "data race on '" + var + "': " + who2 + " " + verb(write2) +
                         " it here while " + who1 + " " + verb(write1) + " it at " + line_col(at1) +
                         " (they run at the same time)");
  }

  void check_pair(const Run& a, const Run& b) {
    const Footprint& fa = a.footprint;
    const Footprint& fb = b.footprint;
    for (const auto& [v, loc] : fa.writes) {
      if (auto it = fb.writes.find(v); it != fb.writes.end()) {
        race(v, fa.who, true, loc, fb.who, true, it->second);
        continue;
      }
      auto it = fb.reads.find(v);
      // b reading an awaited variable that a writes sees its own snapshot.
      if (it != fb.reads.end() && !(a.awaited.count(v) && b.awaited.count(v)))
        race(v, fa.who, true, loc, fb.who, false, it->second);
    }
    for (const auto& [v, loc] : fb.writes) {
      if (fa.writes.count(v)) continue;
      auto it = fa.reads.find(v);
      if (it != fa.reads.end() && !(a.awaited.count(v) && b.awaited.count(v)))
        race(v, fb.who, true, loc, fa.who, false, it->second);
    }
  }

  void check_against_entry(const std::vector<Node>& nodes, const Run& r) {
    const NameSet yielded(nodes[r.start].names.begin(), nodes[r.start].names.end());
    Footprint entry{"block 'entry'", {}, {}};
    for (size_t i = r.start + 1; i < r.end; ++i) {
      if (nodes[i].kind == NodeKind::Yield || nodes[i].kind == NodeKind::Await) continue;
      std::vector<VarAccess> acc;
      collect_accesses(index_, nodes[i], acc);
      entry.add(acc);
    }
    const Footprint& c = r.footprint;
    for (const auto& [v, loc] : entry.writes) {
      if (yielded.count(v)) continue;  // reported as touching a yielded variable
      if (auto it = c.writes.find(v); it != c.writes.end())
        race(v, entry.who, true, loc, c.who, true, it->second);
      else if (auto it2 = c.reads.find(v); it2 != c.reads.end())
        race(v, entry.who, true, loc, c.who, false, it2->second);
    }
    for (const auto& [v, loc] : entry.reads) {
      if (yielded.count(v) || entry.writes.count(v)) continue;
      if (auto it = c.writes.find(v); it != c.writes.end())
        race(v, entry.who, false, loc, c.who, true, it->second);
    }
  }
};

}  // namespace

void check_concurrency(const GraphIndex& index) {
  ConcurrencyChecker(index).run();
}

}  // namespace oi::validation
