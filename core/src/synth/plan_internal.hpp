// Internal to the synthesizer: the state the planning passes share.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "openinfer/synth.hpp"

namespace oi::synth {

struct Context {
  const Graph& graph;  // the plan's own copy (node pointers point into it)
  const OpCatalog& catalog;
  const DeviceArch& arch;
  Plan& plan;
  std::map<std::string, size_t, std::less<>> value_index;  // name -> plan.values position
  std::vector<std::string> keep = {};  // temporaries kept for fetching (Synthesizer)

  PlanValue* value(std::string_view name) {
    auto it = value_index.find(name);
    return it == value_index.end() ? nullptr : &plan.values[it->second];
  }
};

// Pass 1: every declared variable and temporary with its dtype, shape, storage and size.
void resolve_values(Context& c);
// Pass 2: kernels (fusion), the blocks' step lists, dep constraints, internal values.
void build_schedule(Context& c);
// Pass 3: liveness of temporaries, the arena, in-place reuse, the totals.
void plan_memory(Context& c);

// The variables one node touches itself (not its loop body): inputs, outputs, targets, index
// and bound names, branch conditions, setting names, return/yield/await lists. Names that are
// not plan values (loop indices, size variables) are left out by the caller.
void node_names(const Node& n, std::vector<std::string>& reads, std::vector<std::string>& writes);

// "K[l, t-1]" as written.
std::string ref_text(const Ref& r);
std::string access_text(const Access& a);
std::string bound_text(const Bound& b);

}  // namespace oi::synth
