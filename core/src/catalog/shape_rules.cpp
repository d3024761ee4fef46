// The builtin output-shape rules and their registry.
#include <algorithm>
#include <set>

#include "openinfer/error.hpp"
#include "openinfer/op_catalog.hpp"

namespace oi {

std::string format_dims(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

std::optional<Dims> broadcast_shapes(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the trailing axis; missing leading axes count as 1.
    uint64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    uint64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

template <class T>
const T* setting_as(const ShapeRuleContext& ctx, const std::string& name) {
  auto it = ctx.settings.find(name);
  return it == ctx.settings.end() ? nullptr : std::get_if<T>(&it->second);
}

// An axis in [-rank, rank) made non-negative.
size_t normalize_axis(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw ShapeRuleError("axis " + std::to_string(axis) + " is out of range for rank " +
                         std::to_string(rank));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

Dims elementwise_rule(const ShapeRuleContext& ctx) {
  if (ctx.inputs.empty()) return ctx.declared_output;
  Dims result = ctx.inputs[0];
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    if (ctx.op.broadcast) {
      auto b = broadcast_shapes(result, ctx.inputs[i]);
      if (!b)
        throw ShapeRuleError("input shapes " + format_dims(result) + " and " +
                             format_dims(ctx.inputs[i]) + " do not broadcast");
      result = *b;
    } else if (ctx.inputs[i] != result) {
      throw ShapeRuleError("input shapes " + format_dims(result) + " and " +
                           format_dims(ctx.inputs[i]) + " differ and '" + ctx.op.name +
                           "' does not broadcast");
    }
  }
  return result;
}

Dims same_as_input0_rule(const ShapeRuleContext& ctx) {
  return ctx.inputs.empty() ? ctx.declared_output : ctx.inputs[0];
}

Dims scalar_rule(const ShapeRuleContext&) {
  return {};
}

Dims declared_rule(const ShapeRuleContext& ctx) {
  return ctx.declared_output;
}

bool keepdims(const ShapeRuleContext& ctx) {
  const bool* k = setting_as<bool>(ctx, "keepdims");
  return k && *k;
}

Dims reduce_axes_rule(const ShapeRuleContext& ctx) {
  const Dims& in = ctx.inputs.at(0);
  std::set<size_t> axes;
  if (const auto* list = setting_as<std::vector<int64_t>>(ctx, "axes")) {
    for (int64_t a : *list) {
      size_t n = normalize_axis(a, in.size());
      if (!axes.insert(n).second)
        throw ShapeRuleError("axis " + std::to_string(a) + " is repeated in 'axes'");
    }
  } else {
    for (size_t i = 0; i < in.size(); ++i) axes.insert(i);  // absent: every axis
  }
  Dims out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!axes.count(i))
      out.push_back(in[i]);
    else if (keepdims(ctx))
      out.push_back(1);
  }
  return out;
}

Dims argreduce_axis_rule(const ShapeRuleContext& ctx) {
  const Dims& in = ctx.inputs.at(0);
  const int64_t* axis = setting_as<int64_t>(ctx, "axis");
  size_t a = normalize_axis(axis ? *axis : 0, in.size());
  Dims out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (i != a)
      out.push_back(in[i]);
    else if (keepdims(ctx))
      out.push_back(1);
  }
  return out;
}

Dims matmul_rule(const ShapeRuleContext& ctx) {
  const Dims& a = ctx.inputs.at(0);
  const Dims& b = ctx.inputs.at(1);
  if (a.size() < 2 || b.size() < 2)
    throw ShapeRuleError("matmul needs inputs of rank >= 2, got " + format_dims(a) + " and " +
                         format_dims(b));
  if (a[a.size() - 1] != b[b.size() - 2])
    throw ShapeRuleError("matmul inner dimensions differ: " + format_dims(a) + " x " +
                         format_dims(b));
  Dims batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  auto batch = broadcast_shapes(batch_a, batch_b);
  if (!batch)
    throw ShapeRuleError("matmul batch dimensions of " + format_dims(a) + " and " + format_dims(b) +
                         " do not broadcast");
  batch->push_back(a[a.size() - 2]);
  batch->push_back(b[b.size() - 1]);
  return *batch;
}

}  // namespace

ShapeRuleRegistry::ShapeRuleRegistry() {
  rules_.emplace("broadcast", elementwise_rule);
  rules_.emplace("same_as_input0", same_as_input0_rule);
  rules_.emplace("scalar", scalar_rule);
  rules_.emplace("declared", declared_rule);
  rules_.emplace("reduce_axes", reduce_axes_rule);
  rules_.emplace("argreduce_axis", argreduce_axis_rule);
  rules_.emplace("matmul", matmul_rule);
}

ShapeRuleRegistry& ShapeRuleRegistry::global() {
  static ShapeRuleRegistry registry;
  return registry;
}

void ShapeRuleRegistry::add(std::string name, ShapeRuleFn fn) {
  if (!fn) throw input_error("shape rule '" + name + "' has no function");
  if (rules_.count(name)) throw input_error("shape rule '" + name + "' is already registered");
  rules_.emplace(std::move(name), std::move(fn));
}

const ShapeRuleFn* ShapeRuleRegistry::find(std::string_view name) const {
  auto it = rules_.find(name);
  return it == rules_.end() ? nullptr : &it->second;
}

}  // namespace oi
