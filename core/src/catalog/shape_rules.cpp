// The builtin output-shape rules and their registry.
#include <algorithm>
#include <set>

#include "openinfer/broadcast.hpp"
#include "openinfer/error.hpp"
#include "openinfer/op_catalog.hpp"
#include "openinfer/shape_rule_words.hpp"
#include "openinfer/slice_range.hpp"
#include "shape_rules_nn.hpp"

namespace oi {

std::string format_dims(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

namespace {

template <class T>
const T* setting_as(const ShapeRuleContext& ctx, const std::string& name) {
  auto it = ctx.settings.find(name);
  return it == ctx.settings.end() ? nullptr : std::get_if<T>(&it->second);
}

// An axis in [-rank, rank) made non-negative.
size_t normalize_axis(int64_t axis, size_t rank) {
  const std::string e = shape_words::axis_error(axis, rank);
  if (!e.empty()) throw ShapeRuleError(e);
  return static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
}

Dims elementwise_rule(const ShapeRuleContext& ctx) {
  if (ctx.inputs.empty()) return ctx.declared_output;
  Dims result = ctx.inputs[0];
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    if (ctx.op.broadcast) {
      auto b = geometry::broadcast_shape(result, ctx.inputs[i]);
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
  auto batch = geometry::broadcast_shape(batch_a, batch_b);
  if (!batch)
    throw ShapeRuleError("matmul batch dimensions of " + format_dims(a) + " and " + format_dims(b) +
                         " do not broadcast");
  batch->push_back(a[a.size() - 2]);
  batch->push_back(b[b.size() - 1]);
  return *batch;
}

// Softmax-like ops and iota: the output has input 0's shape; `axis` must name one of its axes.
Dims same_as_input0_axis_rule(const ShapeRuleContext& ctx) {
  const Dims& in = ctx.inputs.at(0);
  const int64_t* axis = setting_as<int64_t>(ctx, "axis");
  normalize_axis(axis ? *axis : -1, in.size());
  return in;
}

uint64_t element_count(const Dims& d) {
  uint64_t n = 1;
  for (uint64_t x : d) n *= x;
  return n;
}

// reshape: the declared output shape, holding as many elements as the input (rank 0: one).
Dims reshape_rule(const ShapeRuleContext& ctx) {
  const Dims& in = ctx.inputs.at(0);
  if (element_count(in) != element_count(ctx.declared_output))
    throw ShapeRuleError("cannot reshape " + format_dims(in) + " (" +
                         std::to_string(element_count(in)) + " elements) to " +
                         format_dims(ctx.declared_output) + " (" +
                         std::to_string(element_count(ctx.declared_output)) + " elements)");
  return ctx.declared_output;
}

// transpose: output axis i is input axis perm[i]; absent `perm` reverses the axes.
Dims transpose_rule(const ShapeRuleContext& ctx) {
  const Dims& in = ctx.inputs.at(0);
  const auto* perm = setting_as<std::vector<int64_t>>(ctx, "perm");
  if (!perm) return Dims(in.rbegin(), in.rend());
  if (perm->size() != in.size())
    throw ShapeRuleError("'perm' has " + std::to_string(perm->size()) +
                         " entries but the input has rank " + std::to_string(in.size()));
  std::set<size_t> seen;
  Dims out;
  for (int64_t p : *perm) {
    size_t a = normalize_axis(p, in.size());
    if (!seen.insert(a).second)
      throw ShapeRuleError("axis " + std::to_string(p) + " is repeated in 'perm'");
    out.push_back(in[a]);
  }
  return out;
}

// concat: equal ranks and equal dims except along `axis`, where the sizes add up.
Dims concat_rule(const ShapeRuleContext& ctx) {
  const Dims& first = ctx.inputs.at(0);
  const int64_t* axis_setting = setting_as<int64_t>(ctx, "axis");
  const size_t axis = normalize_axis(axis_setting ? *axis_setting : 0, first.size());
  Dims out = first;
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    const Dims& d = ctx.inputs[i];
    bool ok = d.size() == first.size();
    for (size_t k = 0; ok && k < d.size(); ++k) ok = k == axis || d[k] == first[k];
    if (!ok)
      throw ShapeRuleError("input " + std::to_string(i) + " has shape " + format_dims(d) +
                           ", which does not match " + format_dims(first) + " outside axis " +
                           std::to_string(axis));
    out[axis] += d[axis];
  }
  return out;
}

// gather: data's dims with the `axis` dim replaced by the dims of the indices.
Dims gather_rule(const ShapeRuleContext& ctx) {
  const Dims& data = ctx.inputs.at(0);
  const Dims& indices = ctx.inputs.at(1);
  const int64_t* axis_setting = setting_as<int64_t>(ctx, "axis");
  const size_t axis = normalize_axis(axis_setting ? *axis_setting : 0, data.size());
  Dims out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.end());
  return out;
}

// layer_norm, rms_norm: the output has x's shape; `axis` names one of its axes and every further
// input (scale, bias) has exactly x's dims from `axis` to the last.
Dims norm_trailing_rule(const ShapeRuleContext& ctx) {
  const Dims& x = ctx.inputs.at(0);
  const int64_t* axis_setting = setting_as<int64_t>(ctx, "axis");
  const size_t axis = normalize_axis(axis_setting ? *axis_setting : -1, x.size());
  const Dims trailing(x.begin() + static_cast<std::ptrdiff_t>(axis), x.end());
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    if (ctx.inputs[i] != trailing)
      throw ShapeRuleError("input " + std::to_string(i) + " has shape " +
                           format_dims(ctx.inputs[i]) + " but must have " + format_dims(trailing) +
                           ", the dims of " + format_dims(x) + " from axis " +
                           std::to_string(axis));
  }
  return x;
}

// slice (ONNX Slice): the ranges of openinfer/slice_range.hpp (shared with the backends and the
// emitters); the output dim is the number of indices visited.
Dims slice_rule(const ShapeRuleContext& ctx) {
  const Dims& in = ctx.inputs.at(0);
  const auto* starts = setting_as<std::vector<int64_t>>(ctx, "starts");
  const auto* ends = setting_as<std::vector<int64_t>>(ctx, "ends");
  const auto* axes = setting_as<std::vector<int64_t>>(ctx, "axes");
  const auto* steps = setting_as<std::vector<int64_t>>(ctx, "steps");
  if (!starts || !ends) throw ShapeRuleError("slice needs 'starts' and 'ends'");
  geometry::SliceSettings s{*starts, *ends, {}, {}, axes != nullptr, steps != nullptr};
  if (axes) s.axes = *axes;
  if (steps) s.steps = *steps;
  const geometry::SliceRanges r = geometry::slice_ranges(in, s);
  const auto rank = static_cast<int64_t>(in.size());
  switch (r.error) {
    case geometry::SliceError::none:
      return r.counts();
    case geometry::SliceError::lengths:
      throw ShapeRuleError(
          "'starts', 'ends', 'axes' and 'steps' must have one entry per sliced axis");
    case geometry::SliceError::too_many:
      throw ShapeRuleError("'starts' has " + std::to_string(starts->size()) +
                           " entries but the input has rank " + std::to_string(in.size()));
    case geometry::SliceError::axis_range:
      throw ShapeRuleError("axis " + std::to_string(r.axis) + " is out of range for rank " +
                           std::to_string(in.size()));
    case geometry::SliceError::axis_repeated:
      throw ShapeRuleError("axis " + std::to_string(r.axis < 0 ? r.axis + rank : r.axis) +
                           " is repeated in 'axes'");
    case geometry::SliceError::zero_step:
      throw ShapeRuleError("'steps' entry " + std::to_string(r.entry) + " is 0");
  }
  throw ShapeRuleError("slice: unknown error");
}

// pad: `pads` = [begin_0, ..., end_0, ...], never negative; each output dim is begin + dim + end.
// "reflect" needs each pad smaller than its axis; "edge" needs a non-empty axis where it pads.
Dims pad_rule(const ShapeRuleContext& ctx) {
  const Dims& in = ctx.inputs.at(0);
  const auto* pads = setting_as<std::vector<int64_t>>(ctx, "pads");
  if (!pads) throw ShapeRuleError("pad needs 'pads'");
  if (pads->size() != 2 * in.size())
    throw ShapeRuleError("'pads' has " + std::to_string(pads->size()) + " entries but needs " +
                         std::to_string(2 * in.size()) + " (begin and end per axis)");
  const std::string* mode = setting_as<std::string>(ctx, "mode");
  const std::string m = mode ? *mode : "constant";
  Dims out = in;
  for (size_t a = 0; a < in.size(); ++a) {
    const int64_t b = (*pads)[a], e = (*pads)[a + in.size()];
    if (b < 0 || e < 0)
      throw ShapeRuleError("'pads' of axis " + std::to_string(a) +
                           " is negative (crop with slice)");
    const auto dim = static_cast<int64_t>(in[a]);
    if (m == "reflect" && (b >= dim || e >= dim) && (b > 0 || e > 0))
      throw ShapeRuleError("reflect pads of axis " + std::to_string(a) +
                           " must be smaller than its size " + std::to_string(dim));
    if (m == "edge" && dim == 0 && (b > 0 || e > 0))
      throw ShapeRuleError("edge padding of axis " + std::to_string(a) + ", which is empty");
    out[a] = in[a] + static_cast<uint64_t>(b) + static_cast<uint64_t>(e);
  }
  return out;
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
  rules_.emplace("same_as_input0_axis", same_as_input0_axis_rule);
  rules_.emplace("reshape", reshape_rule);
  rules_.emplace("transpose", transpose_rule);
  rules_.emplace("concat", concat_rule);
  rules_.emplace("gather", gather_rule);
  rules_.emplace("norm_trailing", norm_trailing_rule);
  rules_.emplace("slice", slice_rule);
  rules_.emplace("pad", pad_rule);
  for (auto& [name, fn] : nn_shape_rules()) rules_.emplace(name, std::move(fn));
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
