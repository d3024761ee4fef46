// The order in which a synthesized program runs the consumer blocks of one `yield`, header-only
// in the plugin SDK (both emitters use it; docs/synth.md "Consumers of a yield").
//
// dsl.md's deterministic result: the consumers one after another in source order, each from a
// snapshot of the yielded values. The targets snapshot plain values (a copy, put back after each
// consumer); a persistent table or an @auto_dim matrix (`in_place`) is not copied: its one writer
// (validation allows at most one consumer to write an awaited variable) changes it in place,
// so every other consumer that awaits it must run before the writer to see it as yielded. The
// consumers otherwise touch disjoint memory (validation's data races), so any order that keeps
// those constraints gives the deterministic result; of them, the one closest to source order
// (at each point the earliest consumer whose predecessors have run). `error` says why there is
// none: two writers of one value (a plan validation rejects), or a cycle (consumer A writes a
// table B awaits, and B writes one A awaits).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace oi::emit {

struct YieldConsumer {
  std::string name;
  std::set<std::string> awaits;  // the yielded values it awaits
  std::set<std::string> writes;  // every value it writes (others are ignored)
};

struct ConsumerOrder {
  std::vector<size_t> order;  // indices into the consumers, in run order
  std::string error;          // non-empty: no order (then `order` is empty)
};

inline ConsumerOrder order_consumers(const std::vector<YieldConsumer>& consumers,
                                     const std::set<std::string>& in_place) {
  const size_t n = consumers.size();
  std::vector<std::set<size_t>> before(n);  // before[w]: consumers that must run before w
  for (const std::string& v : in_place) {
    size_t writer = n;
    for (size_t i = 0; i < n; ++i) {
      if (!consumers[i].writes.count(v)) continue;
      if (writer != n)
        return {{},
                "consumers '" + consumers[writer].name + "' and '" + consumers[i].name +
                    "' both write '" + v + "'"};
      writer = i;
    }
    if (writer == n) continue;
    for (size_t i = 0; i < n; ++i)
      if (i != writer && consumers[i].awaits.count(v)) before[writer].insert(i);
  }
  ConsumerOrder out;
  std::vector<bool> placed(n, false);
  while (out.order.size() < n) {
    size_t next = n;
    for (size_t i = 0; i < n && next == n; ++i) {
      if (placed[i]) continue;
      bool ready = true;
      for (size_t p : before[i]) ready = ready && placed[p];
      if (ready) next = i;
    }
    if (next == n) {
      std::string names;
      for (size_t i = 0; i < n; ++i)
        if (!placed[i]) names += (names.empty() ? "'" : ", '") + consumers[i].name + "'";
      return {{},
              "consumers " + names +
                  " each await a table or @auto_dim matrix that another of them writes"};
    }
    placed[next] = true;
    out.order.push_back(next);
  }
  return out;
}

// A cycle (each of some consumers awaits a table another writes) has no such order: then the
// tables one consumer writes and another awaits constrain nothing, and each whose writer runs
// before one of its readers is copied at the yield (`copied`): its readers after the writer
// read the copy, the table as yielded, as the simulator's Memory::table_snapshot gives it
// (docs/synth.md "Consumers of a yield"). `order.error`: two consumers write one table.
struct ConsumerPlan {
  ConsumerOrder order;
  std::set<std::string> copied;
};

inline ConsumerPlan plan_consumers(const std::vector<YieldConsumer>& consumers,
                                   const std::set<std::string>& in_place) {
  ConsumerPlan plan;
  plan.order = order_consumers(consumers, in_place);
  if (plan.order.error.empty()) return plan;
  std::set<std::string> contested, ordered;
  for (const std::string& v : in_place) {
    size_t writers = 0, readers = 0;
    for (const YieldConsumer& c : consumers) {
      writers += c.writes.count(v);
      readers += c.awaits.count(v) && !c.writes.count(v) ? 1 : 0;
    }
    (writers == 1 && readers > 0 ? contested : ordered).insert(v);
  }
  plan.order = order_consumers(consumers, ordered);
  if (!plan.order.error.empty()) return plan;
  std::vector<size_t> position(consumers.size());
  for (size_t p = 0; p < plan.order.order.size(); ++p) position[plan.order.order[p]] = p;
  for (const std::string& v : contested) {
    size_t writer = 0;
    for (size_t i = 0; i < consumers.size(); ++i)
      if (consumers[i].writes.count(v)) writer = i;
    for (size_t i = 0; i < consumers.size(); ++i)
      if (i != writer && consumers[i].awaits.count(v) && position[i] > position[writer])
        plan.copied.insert(v);
  }
  return plan;
}

}  // namespace oi::emit
