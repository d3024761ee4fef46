// The device's shape limits (shape_limits.hpp).
#include "shape_limits.hpp"

#include <string>

#include "refusal.hpp"

namespace oi::glsl {

namespace {

// The elements of `shape`, saturating (a count past 2^64 is past any limit too).
uint64_t count(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n = d != 0 && n > UINT64_MAX / d ? UINT64_MAX : n * d;
  return n;
}

const ValueIn* value_of(const PlanIn& plan, const std::string& text) {
  auto it = plan.value_index.find(parse_ref(text).name);
  return it == plan.value_index.end() ? nullptr : &plan.values[it->second];
}

// The elements operand `text` spans: a value's, one table entry's, or a window's entries
// where its lengths are integers (others are checked where the host program copies them).
uint64_t operand_elements(const PlanIn& plan, const std::string& text) {
  const ValueRef r = parse_ref(text);
  auto it = plan.value_index.find(r.name);
  if (it == plan.value_index.end()) return 0;
  const ValueIn& v = plan.values[it->second];
  uint64_t n = count(v.shape);
  if (!v.is_table()) return n;
  for (const std::string& t : r.index) {
    const size_t dots = t.find("..");
    if (dots == std::string::npos) continue;
    try {
      const long long a = std::stoll(t.substr(0, dots)), b = std::stoll(t.substr(dots + 2));
      if (b > a) n = count({n, static_cast<uint64_t>(b - a)});
    } catch (const std::exception&) {  // not integers: a run-time length
    }
  }
  return n;
}

}  // namespace

std::string element_limit_key(const DeviceIn& device) {
  return "limits.max_elements " + std::to_string(device.max_elements);
}

void check_shape_limits(const PlanIn& plan, const DeviceIn& device, const KernelIn& k) {
  for (const OpIn& op : k.ops) {
    std::vector<std::string> operands = op.inputs;
    operands.push_back(op.output);
    for (const std::string& t : operands) {
      if (const uint64_t n = operand_elements(plan, t); n > device.max_elements)
        device_limit(device, op_where(op),
                     "'" + t + "' of " + std::to_string(n) + " elements, more than " +
                         std::to_string(device.max_elements),
                     element_limit_key(device));
      const ValueIn* v = value_of(plan, t);
      if (v && device.max_rank < DeviceIn::kShaderMaxRank && v->shape.size() > device.max_rank)
        device_limit(device, op_where(op),
                     "tensors of rank above " + std::to_string(device.max_rank) + " ('" + t +
                         "' of rank " + std::to_string(v->shape.size()) + ")",
                     "limits.max_rank " + std::to_string(device.max_rank));
    }
    if (const uint64_t n = count(k.shape); n > device.max_elements)
      device_limit(device, op_where(op),
                   "a kernel over " + std::to_string(n) + " elements, more than " +
                       std::to_string(device.max_elements),
                   element_limit_key(device));
    // attention's head dim: q's last (ops-nn.md: q [..., Tq, D])
    if (op.shape_rule == "attention" && !op.inputs.empty() &&
        device.max_head_dim < DeviceIn::kShaderMaxHeadDim)
      if (const ValueIn* q = value_of(plan, op.inputs[0]);
          q && !q->shape.empty() && q->shape.back() > device.max_head_dim)
        device_limit(device, op_where(op),
                     "head dims above " + std::to_string(device.max_head_dim) + " (" +
                         std::to_string(q->shape.back()) + ")",
                     "limits.max_head_dim " + std::to_string(device.max_head_dim));
  }
}

}  // namespace oi::glsl
