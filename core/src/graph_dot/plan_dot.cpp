// plan_to_dot: the plan's graph with each kernel coloured by kind; a fused kernel (several ops)
// is a cluster labelled with its id, kind, iteration shape and internal values (docs/synth.md
// "Pictures").
#include <filesystem>

#include "dot_text.hpp"
#include "openinfer/graph_dot.hpp"
#include "openinfer/op_catalog.hpp"
#include "openinfer/synth.hpp"

namespace oi {
namespace {

// Fill per kernel kind (docs/synth.md "Fuse"): light hues, readable under black text.
std::string kernel_fill(const std::string& kind) {
  if (kind == "elementwise") return "#c7e9c0";
  if (kind == "matmul") return "#c6dbef";
  if (kind == "reduction") return "#fdd0a2";
  return "#e5e5e5";  // "op": any other op, alone
}

}  // namespace

std::string plan_to_dot(const Plan& plan) {
  if (!plan.graph) return {};
  DotDecorations d;
  d.title = "plan of " + std::filesystem::path(plan.graph->origin).filename().string() + " for " +
            plan.device.device.name + " (kernels coloured by kind)";
  for (const PlanKernel& k : plan.kernels) {
    std::string head = "k" + std::to_string(k.id) + " " + k.kind + " " + format_dims(k.shape);
    if (!k.placement.empty()) head += " on " + k.placement;
    std::optional<size_t> group;
    if (k.ops.size() > 1) {
      std::string label = head + ", " + std::to_string(k.ops.size()) + " ops";
      if (!k.internal.empty()) {
        label += "; internal:";
        for (const std::string& i : k.internal) label += " " + i;
      }
      if (k.reordered) label += "; reordered";
      group = d.groups.size();
      d.groups.push_back({label, kernel_fill(k.kind)});
    }
    for (const Node* n : k.ops) {
      DotNodeMark& m = d.marks[n];
      m.fill = kernel_fill(k.kind);
      m.group = group;
      if (!group) m.note = head;
    }
  }
  DotOptions o;
  o.model = &plan.model;
  o.decorations = &d;
  return graph_to_dot(*plan.graph, o);
}

}  // namespace oi
