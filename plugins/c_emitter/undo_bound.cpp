// How many entries of each table one step can change (undo_bound.hpp). Saturating counts: a
// loop of unknown length makes its tables' counts kManyChanges, which the caller bounds by the
// table's entries (a step notes each entry once).
#include "undo_bound.hpp"

#include <algorithm>

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

  Changes block(const std::string& name, int depth) const {
    for (const auto& b : plan.at("blocks").as_array())
      if (str(b.at("name")) == name) return steps(b.at("steps").as_array(), false, depth + 1);
    return {};
  }

  // A consumer's own yield and await wait for nothing (as the generated step has it): only
  // entry's yield runs consumers.
  Changes steps(const json::array& list, bool entry, int depth) const {
    if (depth > 64) c_gap("nesting-depth", "blocks nested over 64 deep are not supported");
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
        add_changes(out, steps(st.at("body").as_array(), entry, depth + 1), trips);
      } else if (kind == "branch") {
        Changes one = block(str(st.at("then")), depth);
        if (!str(st.at("cond")).empty())
          for (const auto& [t, n] : block(str(st.at("else")), depth)) one[t] = std::max(one[t], n);
        add_changes(out, one);
      } else if (kind == "yield" && entry) {
        for (const auto& t : st.at("tasks").as_array()) add_changes(out, block(str(t), depth));
      }
    }
    return out;
  }
};

}  // namespace

std::map<std::string, uint64_t> step_changes(const json::value& plan, const ChangeSizes& sizes) {
  const Walk walk{plan, sizes};
  return walk.steps(plan.at("blocks").as_array().at(0).at("steps").as_array(), true, 0);
}

}  // namespace oi::c_emitter
