// Output-shape rules of the network layers. Spatial ops follow ONNX (floor mode), sized by the
// SDK's openinfer/window.hpp as the backends and emitters size them.
#include "shape_rules_nn.hpp"

#include <string>

#include "openinfer/shape_rule_words.hpp"
#include "openinfer/window.hpp"

namespace oi {
namespace {

template <class T>
const T* setting_as(const ShapeRuleContext& ctx, const std::string& name) {
  auto it = ctx.settings.find(name);
  return it == ctx.settings.end() ? nullptr : std::get_if<T>(&it->second);
}

std::string dims_text(const Dims& d) {
  return format_dims(d);
}

// A per-spatial-axis list setting: absent gives `fallback` on every axis.
std::vector<int64_t> spatial_list(const ShapeRuleContext& ctx, const std::string& name,
                                  size_t count, int64_t fallback, int64_t minimum) {
  const auto* v = setting_as<std::vector<int64_t>>(ctx, name);
  if (!v) return std::vector<int64_t>(count, fallback);
  if (v->size() != count)
    throw ShapeRuleError("'" + name + "' has " + std::to_string(v->size()) + " entries but needs " +
                         std::to_string(count) + " (one per spatial axis)");
  for (int64_t x : *v)
    if (x < minimum)
      throw ShapeRuleError("'" + name + "' entry " + std::to_string(x) + " is below " +
                           std::to_string(minimum));
  return *v;
}

// The spatial output sizes of a window of `kernel` taps sliding over x's dims 2.. .
Dims spatial_output(const ShapeRuleContext& ctx, const Dims& x, const std::vector<int64_t>& kernel,
                    bool has_dilations) {
  const size_t n = x.size() - 2;
  const auto strides = spatial_list(ctx, "strides", n, 1, 1);
  const auto dilations =
      has_dilations ? spatial_list(ctx, "dilations", n, 1, 1) : std::vector<int64_t>(n, 1);
  const auto* pads_setting = setting_as<std::vector<int64_t>>(ctx, "pads");
  std::vector<int64_t> pads(2 * n, 0);
  if (pads_setting) {
    if (pads_setting->size() != 2 * n)
      throw ShapeRuleError("'pads' has " + std::to_string(pads_setting->size()) +
                           " entries but needs " + std::to_string(2 * n) +
                           " ([begin..., end...] per spatial axis)");
    pads = *pads_setting;
    for (int64_t p : pads)
      if (p < 0)
        throw ShapeRuleError("'pads' entry " + std::to_string(p) +
                             " is negative (crop with slice)");
  }
  Dims out;
  for (size_t i = 0; i < n; ++i) {
    const geometry::WindowAxis a{x[2 + i],
                                 static_cast<uint64_t>(kernel[i]),
                                 static_cast<uint64_t>(strides[i]),
                                 static_cast<uint64_t>(dilations[i]),
                                 static_cast<uint64_t>(pads[i]),
                                 static_cast<uint64_t>(pads[n + i])};
    // An empty axis gives an empty result (ops-nn.md), even where no window would fit.
    if (!a.valid())
      throw ShapeRuleError("spatial axis " + std::to_string(i) + ": the window spans " +
                           std::to_string(a.span()) + " but the padded input has only " +
                           std::to_string(a.padded()));
    out.push_back(a.output());
  }
  return out;
}

void need_spatial_rank(const std::string& op, const Dims& x) {
  if (x.size() != 3 && x.size() != 4)
    throw ShapeRuleError(op + " needs x of rank 3 (N, C, W) or 4 (N, C, H, W), got " +
                         dims_text(x));
}

// conv: x [N, C, spatial...], w [M, C/group, k...], b [M] -> [N, M, out...].
Dims conv_rule(const ShapeRuleContext& ctx) {
  const Dims& x = ctx.inputs.at(0);
  const Dims& w = ctx.inputs.at(1);
  need_spatial_rank("conv", x);
  if (w.size() != x.size())
    throw ShapeRuleError("conv weight " + dims_text(w) + " must have x's rank " +
                         std::to_string(x.size()) + " ([M, C/group, kernel...])");
  const int64_t* group_setting = setting_as<int64_t>(ctx, "group");
  const std::string e = shape_words::conv_channels_error(x, w, group_setting ? *group_setting : 1);
  if (!e.empty()) throw ShapeRuleError(e);
  if (ctx.inputs.size() > 2 && ctx.inputs[2] != Dims{w[0]})
    throw ShapeRuleError("conv bias " + dims_text(ctx.inputs[2]) + " must be [" +
                         std::to_string(w[0]) + "], one value per output channel");
  std::vector<int64_t> kernel;
  for (size_t i = 2; i < w.size(); ++i) {
    if (w[i] == 0) throw ShapeRuleError("conv weight " + dims_text(w) + " has an empty kernel");
    kernel.push_back(static_cast<int64_t>(w[i]));
  }
  Dims out{x[0], w[0]};
  for (uint64_t d : spatial_output(ctx, x, kernel, true)) out.push_back(d);
  return out;
}

// max_pool, avg_pool: x [N, C, spatial...] -> [N, C, out...] with `kernel` taps per axis.
Dims pool_rule(const ShapeRuleContext& ctx) {
  const Dims& x = ctx.inputs.at(0);
  need_spatial_rank(ctx.op.name, x);
  const auto kernel = spatial_list(ctx, "kernel", x.size() - 2, 1, 1);
  Dims out{x[0], x[1]};
  for (uint64_t d : spatial_output(ctx, x, kernel, ctx.op.find_setting("dilations") != nullptr))
    out.push_back(d);
  return out;
}

// batch_norm: x [N, C, ...]; scale, bias, mean and var are [C].
Dims batch_norm_rule(const ShapeRuleContext& ctx) {
  const Dims& x = ctx.inputs.at(0);
  if (x.size() < 2)
    throw ShapeRuleError("batch_norm needs x of rank >= 2 (N, C, ...), got " + dims_text(x));
  static const char* const kNames[] = {"x", "scale", "bias", "mean", "var"};
  for (size_t i = 1; i < ctx.inputs.size(); ++i)
    if (ctx.inputs[i] != Dims{x[1]})
      throw ShapeRuleError(std::string("batch_norm ") + kNames[i] + " " + dims_text(ctx.inputs[i]) +
                           " must be [" + std::to_string(x[1]) + "], one value per channel");
  return x;
}

// attention: q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] (leading dims broadcast),
// mask broadcast to [..., Tq, Tk] -> [..., Tq, Dv].
Dims attention_rule(const ShapeRuleContext& ctx) {
  Dims out;
  const std::string e =
      shape_words::attention_error(ctx.inputs.at(0), ctx.inputs.at(1), ctx.inputs.at(2),
                                   ctx.inputs.size() > 3 ? &ctx.inputs[3] : nullptr, out);
  if (!e.empty()) throw ShapeRuleError(e);
  return out;
}

// rope: x [..., T, D] with D even; pos a scalar.
Dims rope_rule(const ShapeRuleContext& ctx) {
  const std::string e = shape_words::rope_error(ctx.inputs.at(0), ctx.inputs.at(1));
  if (!e.empty()) throw ShapeRuleError(e);
  return ctx.inputs[0];
}

// dequantize: scale (and zero_point) a scalar or 1-D along `axis`; y has x's shape.
Dims dequantize_rule(const ShapeRuleContext& ctx) {
  const Dims& x = ctx.inputs.at(0);
  const Dims& scale = ctx.inputs.at(1);
  if (scale.size() > 1)
    throw ShapeRuleError("dequantize scale must be a scalar or 1-D, got " + dims_text(scale));
  if (scale.size() == 1) {
    const int64_t* axis_setting = setting_as<int64_t>(ctx, "axis");
    const int64_t r = static_cast<int64_t>(x.size());
    int64_t axis = axis_setting ? *axis_setting : 1;
    if (const std::string e = shape_words::axis_error(axis, x.size()); !e.empty())
      throw ShapeRuleError(e);
    if (axis < 0) axis += r;
    if (scale[0] != x[static_cast<size_t>(axis)])
      throw ShapeRuleError("dequantize scale " + dims_text(scale) + " must have " +
                           std::to_string(x[static_cast<size_t>(axis)]) +
                           " entries, x's size along axis " + std::to_string(axis));
  }
  if (ctx.inputs.size() > 2 && ctx.inputs[2] != scale)
    throw ShapeRuleError("dequantize zero_point " + dims_text(ctx.inputs[2]) +
                         " must have scale's shape " + dims_text(scale));
  return x;
}

}  // namespace

std::vector<std::pair<const char*, ShapeRuleFn>> nn_shape_rules() {
  return {{"conv", conv_rule},           {"pool", pool_rule}, {"batch_norm", batch_norm_rule},
          {"attention", attention_rule}, {"rope", rope_rule}, {"dequantize", dequantize_rule}};
}

}  // namespace oi
