// How many entries of each table one step can change (undo_bound.hpp). Saturating counts: a
// loop of unknown length makes its tables' counts kManyChanges, which the caller bounds by the
// table's entries (a step notes each entry once).
#include "undo_bound.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "c_generator.hpp"

namespace oi::c_emitter {
namespace {

using Changes = std::map<std::string, uint64_t>;

uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > kManyChanges - b ? kManyChanges : a + b;
}
uint64_t mul_sat(uint64_t a, uint64_t b) {
  return b && a > kManyChanges / b ? kManyChanges : a * b;
}
void add_changes(Changes& to, const Changes& from, uint64_t times = 1) {
  for (const auto& [t, n] : from) to[t] = add_sat(to[t], mul_sat(n, times));
}

struct Walk {
  const json::value& plan;
  const ChangeSizes& sizes;
  // Each block's changes, computed once, callees first (blocks_first): a chain of branches any
  // number of blocks long needs no deeper recursion than one block's loops (the parser nests
  // them at most 64 deep), and blocks reached on many paths are walked once.
  std::map<std::string, Changes> done;

  const json::array* steps_of(const std::string& name) const {
    for (const auto& b : plan.at("blocks").as_array())
      if (str(b.at("name")) == name) return &b.at("steps").as_array();
    return nullptr;
  }

  Changes block(const std::string& name) const {
    auto it = done.find(name);
    if (it != done.end()) return it->second;
    const json::array* list = steps_of(name);
    return list ? steps(*list, false) : Changes{};
  }

  // The blocks a block's steps run (branches, in loops too; entry's yield: its consumers).
  static void callees(const json::array& list, bool entry, std::vector<std::string>& out) {
    for (const auto& jst : list) {
      const auto& st = jst.as_object();
      const std::string kind = str(st.at("kind"));
      if (kind == "loop") callees(st.at("body").as_array(), entry, out);
      if (kind == "branch") {
        out.push_back(str(st.at("then")));
        if (!str(st.at("cond")).empty()) out.push_back(str(st.at("else")));
      }
      if (kind == "yield" && entry)
        for (const auto& t : st.at("tasks").as_array()) out.push_back(str(t));
    }
  }

  // Every block entry reaches, each after the blocks it runs (an iterative depth-first walk;
  // the validator allows no block to reach itself).
  void blocks_first() {
    std::set<std::string> seen;
    std::vector<std::pair<std::string, bool>> stack;  // (block, its callees pushed)
    const json::array& entry_steps = plan.at("blocks").as_array().at(0).at("steps").as_array();
    std::vector<std::string> roots;
    callees(entry_steps, true, roots);
    for (const auto& r : roots) stack.push_back({r, false});
    while (!stack.empty()) {
      auto [name, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        if (const json::array* list = steps_of(name)) done[name] = steps(*list, false);
        continue;
      }
      if (!seen.insert(name).second) continue;
      stack.push_back({name, true});
      std::vector<std::string> next;
      if (const json::array* list = steps_of(name)) callees(*list, false, next);
      for (const auto& n : next)
        if (!seen.count(n)) stack.push_back({n, false});
    }
  }

  // A consumer's own yield and await wait for nothing (as the generated step has it): only
  // entry's yield runs consumers.
  Changes steps(const json::array& list, bool entry) const {
    Changes out;
    auto add = [&](const std::string& table, uint64_t n) { out[table] = add_sat(out[table], n); };
    for (const auto& jst : list) {
      const auto& st = jst.as_object();
      const std::string kind = str(st.at("kind"));
      if (kind == "kernel") {
        const auto& k = plan.at("kernels").as_array().at(st.at("kernel").as_int64());
        for (const auto& op : k.at("ops").as_array())
          if (auto t = sizes.table(str(op.at("output"))))
            add(*t, sizes.written(str(op.at("output")), nullptr));
      } else if (kind == "cache.write" || kind == "transfer" || kind == "cache.read") {
        // (a cache.read or transfer stores into a table entry too: c_generator.cpp)
        const std::string to = str(st.at("to")), from = str(st.at("from"));
        if (auto t = sizes.table(to)) add(*t, sizes.written(to, &from));
      } else if (kind == "cache.reset") {
        const std::string target = str(st.at("target"));
        if (auto t = sizes.table(target)) add(*t, sizes.erased(target));
      } else if (kind == "loop") {
        const auto a = sizes.bound(str(st.at("start"))), e = sizes.bound(str(st.at("end")));
        const uint64_t trips = !a || !e  ? kManyChanges
                               : *e > *a ? static_cast<uint64_t>(*e - *a)
                                         : 0;
        add_changes(out, steps(st.at("body").as_array(), entry), trips);
      } else if (kind == "branch") {
        Changes one = block(str(st.at("then")));
        if (!str(st.at("cond")).empty())
          for (const auto& [t, n] : block(str(st.at("else")))) one[t] = std::max(one[t], n);
        add_changes(out, one);
      } else if (kind == "yield" && entry) {
        for (const auto& t : st.at("tasks").as_array()) add_changes(out, block(str(t)));
      }
    }
    return out;
  }
};

}  // namespace

std::map<std::string, uint64_t> step_changes(const json::value& plan, const ChangeSizes& sizes) {
  Walk walk{plan, sizes, {}};
  walk.blocks_first();
  return walk.steps(plan.at("blocks").as_array().at(0).at("steps").as_array(), true);
}

}  // namespace oi::c_emitter
