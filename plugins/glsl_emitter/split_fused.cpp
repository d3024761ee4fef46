// Fused kernels around operands of run-time shape, one kernel per op (split_fused.hpp).
#include "split_fused.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "runtime_length.hpp"
#include "vulkan_kernels.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

bool is_slice(const std::string& term) {
  return term.find("..") != std::string::npos;
}

// Whether operand `text` is one the planner never fuses: an @auto_dim matrix (whole, a part or
// grown by the access) or a window of a table's entries.
bool runtime_shaped(const PlanIn& plan, const std::string& text) {
  const ValueRef r = parse_ref(text);
  auto it = plan.value_index.find(r.name);
  if (it == plan.value_index.end()) return false;
  const ValueIn& v = plan.values[it->second];
  if (v.is_auto_dim()) return true;
  return v.is_table() && (r.all || r.index.size() < v.indices.size() ||
                          std::any_of(r.index.begin(), r.index.end(), is_slice));
}

bool needs_split(const PlanIn& plan, const KernelIn& k) {
  if (k.ops.size() < 2) return false;
  for (const OpIn& op : k.ops) {
    if (runtime_shaped(plan, op.output)) return true;
    for (const std::string& in : op.inputs)
      if (runtime_shaped(plan, in)) return true;
  }
  return false;
}

// The kernel the planner gives `op` alone (build_schedule.cpp's classify, open_kernel and
// table_result_shape): its class by the catalog's shape rule (the reductions are the ops of the
// reduce_axes and argreduce_axis rules), its shape the output's (a table's entry's, a matrix's
// declared one), or for table entries the rule's result where every input is a whole value of
// static shape, every setting a literal and there is no acc=.
KernelIn kernel_of(const PlanIn& plan, const OpIn& op, uint32_t id) {
  KernelIn k;
  k.id = id;
  const std::string& rule = op.shape_rule;
  k.kind = rule == "matmul"                                    ? "matmul"
           : rule == "reduce_axes" || rule == "argreduce_axis" ? "reduction"
           : rule == "broadcast"                               ? "elementwise"
                                                               : "op";
  const ValueIn& out = plan.value(parse_ref(op.output).name);
  k.shape = out.shape;
  if (out.is_table() && !out.is_auto_dim() && !op.named_settings && !op.settings.contains("acc")) {
    std::vector<std::vector<uint64_t>> in;
    for (const std::string& t : op.inputs) {
      const ValueRef r = parse_ref(t);
      const ValueIn& v = plan.value(r.name);
      if (!r.index.empty() || r.all || v.is_table() || v.is_auto_dim()) break;
      in.push_back(v.shape);
    }
    std::string why;
    if (in.size() == op.inputs.size())
      if (auto s = rule_result_shape(op, in, why)) k.shape = *s;
  }
  k.ops.push_back(op);
  return k;
}

// Reads and writes of a kernel of one op: its operands' names.
void name_operands(KernelIn& k) {
  k.reads.clear();
  k.writes.clear();
  k.internal.clear();
  for (const std::string& in : k.ops.front().inputs) {
    const std::string n = parse_ref(in).name;
    if (std::find(k.reads.begin(), k.reads.end(), n) == k.reads.end()) k.reads.push_back(n);
  }
  k.writes.push_back(parse_ref(k.ops.front().output).name);
}

// Inserts after each kernel step of `steps` naming a split kernel the steps of its other ops.
void add_steps(json::array& steps, const std::map<uint32_t, std::vector<uint32_t>>& split) {
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].is_object()) continue;
    json::object& s = steps[i].as_object();
    if (json::value* body = s.if_contains("body"); body && body->is_array())
      add_steps(body->as_array(), split);
    const json::value* kind = s.if_contains("kind");
    const json::value* k = s.if_contains("kernel");
    if (!kind || *kind != "kernel" || !k || !k->is_int64()) continue;
    auto it = split.find(static_cast<uint32_t>(k->as_int64()));
    if (it == split.end()) continue;
    const json::object step = s;  // a copy: steps grows below
    for (uint32_t id : it->second) {
      json::object next = step;
      next["kernel"] = static_cast<int64_t>(id);  // as the planner writes ids
      steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(++i), std::move(next));
    }
  }
}

}  // namespace

void split_fused_kernels(PlanIn& plan) {
  std::map<uint32_t, std::vector<uint32_t>> split;  // a kernel -> the kernels of its other ops
  const size_t count = plan.kernels.size();
  for (size_t i = 0; i < count; ++i) {
    if (!needs_split(plan, plan.kernels[i])) continue;
    const std::vector<OpIn> ops = plan.kernels[i].ops;
    // values the kernel kept internal: the kernels after the first read them from memory
    std::set<std::string> written;
    for (const OpIn& op : ops) written.insert(parse_ref(op.output).name);
    for (ValueIn& v : plan.values)
      if (v.storage == "internal" && written.count(v.name)) {
        v.storage = "scratch";
        v.bytes = dtype_bytes(v.dtype, v.elements);
      }
    KernelIn& head = plan.kernels[i];
    head.ops.resize(1);
    name_operands(head);
    const uint32_t head_id = head.id;
    for (size_t j = 1; j < ops.size(); ++j) {
      KernelIn k = kernel_of(plan, ops[j], static_cast<uint32_t>(plan.kernels.size()));
      name_operands(k);
      split[head_id].push_back(k.id);
      plan.kernels.push_back(std::move(k));
    }
  }
  if (split.empty()) return;
  for (json::value& b : plan.blocks)
    if (json::object* o = b.if_object())
      if (json::value* steps = o->if_contains("steps"); steps && steps->is_array())
        add_steps(steps->as_array(), split);
}

}  // namespace oi::glsl
