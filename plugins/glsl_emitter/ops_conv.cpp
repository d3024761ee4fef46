// conv(x, w[, b]) and the pools (ops-nn.md, ONNX Conv, MaxPool, AveragePool) on [N, C, W]
// (1-D, run as 2-D with H = 1) and [N, C, H, W]; strides, pads, dilations, group. conv (f32,
// f64) is
// direct, one invocation per output element: the taps of its group's channels are summed in f32
// in (channel, row, column) order, padded cells skipped, then the bias added. The CPU backend
// sums in another order (and through BLAS for large products), which ops-nn.md's conv
// tolerance (1e-5, 1e-4) allows.
#include <algorithm>

#include "openinfer/window.hpp"
#include "ops.hpp"

namespace oi::glsl {
namespace {

struct Window {
  uint64_t batch = 0, channels = 0;
  uint64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1, k_h = 1, k_w = 1;
  uint64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // the end pads only bound the output size
};

// Settings default to stride 1, pad 0, dilation 1; the output's spatial size is checked.
Window window_of(ShaderBuilder& sb, const OpIn& op, const ValueIn& x, const ValueIn& y,
                 const std::vector<uint64_t>& kernel) {
  if ((x.shape.size() != 3 && x.shape.size() != 4) || y.shape.size() != x.shape.size())
    unsupported(op_where(op) + " of rank other than 3 or 4 is not supported");
  const size_t n = x.shape.size() - 2;
  auto list = [&](const char* key, size_t count, int64_t fallback, int64_t minimum) {
    std::vector<int64_t> v = sb.int_list(op, key);
    if (!sb.setting(op, key)) v.assign(count, fallback);
    if (v.size() != count)
      invalid(op_where(op) + ": '" + key + "' needs " + std::to_string(count) + " entries");
    for (int64_t e : v)
      if (e < minimum) invalid(op_where(op) + ": '" + key + "' has " + std::to_string(e));
    return v;
  };
  const auto strides = list("strides", n, 1, 1), pads = list("pads", 2 * n, 0, 0),
             dil = list("dilations", n, 1, 1);
  if (kernel.size() != n) invalid(op_where(op) + ": w needs x's spatial rank");
  for (uint64_t k : kernel)
    if (k == 0) invalid(op_where(op) + ": the kernel has an axis of no taps");
  geometry::Window2d w;  // the SDK's window arithmetic (openinfer/window.hpp)
  const geometry::WindowMismatch m =
      geometry::window_2d(x.shape, y.shape, kernel, strides, dil, pads, w);
  if (!m.ok)
    invalid(op_where(op) + ": spatial axis " + std::to_string(m.axis) + " of the output has " +
            std::to_string(y.shape[2 + m.axis]) + " cells, the window gives " +
            std::to_string(m.want));
  Window g;
  g.batch = w.batch;
  g.channels = w.channels;
  g.in_h = w.in_h;
  g.in_w = w.in_w;
  g.out_h = w.out_h;
  g.out_w = w.out_w;
  g.k_h = w.k_h;
  g.k_w = w.k_w;
  g.stride_h = w.stride_h;
  g.stride_w = w.stride_w;
  g.dil_h = w.dil_h;
  g.dil_w = w.dil_w;
  g.pad_top = static_cast<int64_t>(w.pad_top);
  g.pad_left = static_cast<int64_t>(w.pad_left);
  if (y.shape[0] != g.batch) invalid(op_where(op) + ": the output's batch differs");
  return g;
}

KernelShader conv(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"strides", "pads", "dilations", "group"});
  if (op.inputs.size() < 2 || op.inputs.size() > 3)
    invalid(op_where(op) + " takes x, w and an optional bias");
  const ValueIn& x = sb.value(op.inputs[0]);
  const ValueIn& w = sb.value(op.inputs[1]);
  const ValueIn* b = op.inputs.size() == 3 ? &sb.value(op.inputs[2]) : nullptr;
  const ValueIn& y = sb.value(op.output);
  const std::string T = sb.type_of(y.name);
  for (const ValueIn* v : {&x, &w, b, &y})
    if (v && (sb.type_of(v->name) != T || !is_float_type(T)))
      unsupported(op_where(op) + " on " + v->dtype + " is not supported (f32 and f64 are, " +
                  "every operand of the output's dtype)");
  if (w.shape.size() != x.shape.size())
    invalid(op_where(op) + ": w needs x's rank ([M, C/group, kernel...])");
  const std::vector<uint64_t> kernel(w.shape.begin() + std::min<size_t>(2, w.shape.size()),
                                     w.shape.end());
  const Window g = window_of(sb, op, x, y, kernel);
  const uint64_t M = w.shape[0];
  const int64_t group_setting = sb.int_setting(op, "group", 1);
  const auto group = static_cast<uint64_t>(std::max<int64_t>(group_setting, 0));
  if (group < 1 || g.channels % group || M % group || w.shape[1] * group != g.channels ||
      y.shape[1] != M || (b && (b->shape.size() != 1 || b->shape[0] != M)))
    invalid(op_where(op) + ": group, channels, w or the bias do not fit");
  sb.check_count(std::max({product(x.shape), product(w.shape), product(y.shape)}), "element count");
  const uint64_t cpg = g.channels / group, mpg = M / group;
  const uint64_t oplane = g.out_h * g.out_w;
  const std::string X = sb.buffer(x.name), W = sb.buffer(w.name);
  std::ostringstream c;
  c << "    const uint ow = i % " << u(g.out_w) << ", oh = (i / " << u(g.out_w) << ") % "
    << u(g.out_h) << ";\n"
    << "    const uint m = (i / " << u(oplane) << ") % " << u(M) << ", nb = i / " << u(oplane * M)
    << ";\n"
    << "    const uint xc = nb * " << u(g.channels) << " + m / " << u(mpg) << " * " << u(cpg)
    << ";\n"
    << "    " << T << " acc = " << T << "(0);\n"
    << "    for (uint ci = 0u; ci < " << u(cpg) << "; ++ci) {\n"
    << "      const uint xp = (xc + ci) * " << u(g.in_h * g.in_w) << ";\n"
    << "      const uint wp = (m * " << u(cpg) << " + ci) * " << u(g.k_h * g.k_w) << ";\n"
    << "      for (uint kh = 0u; kh < " << u(g.k_h) << "; ++kh) {\n"
    << "        const int ih = int(oh * " << u(g.stride_h) << " + kh * " << u(g.dil_h) << ") - "
    << g.pad_top << ";\n"
    << "        if (ih < 0 || ih >= " << g.in_h << ") continue;\n"
    << "        for (uint kw = 0u; kw < " << u(g.k_w) << "; ++kw) {\n"
    << "          const int iw = int(ow * " << u(g.stride_w) << " + kw * " << u(g.dil_w) << ") - "
    << g.pad_left << ";\n"
    << "          if (iw < 0 || iw >= " << g.in_w << ") continue;\n"
    << "          acc += " << W << "[wp + kh * " << u(g.k_w) << " + kw] * " << X
    << "[xp + uint(ih) * " << u(g.in_w) << " + uint(iw)];\n"
    << "        }\n      }\n    }\n";
  if (b) c << "    acc += " << sb.buffer(b->name) << "[m];\n";
  c << "    " << sb.buffer(y.name) << "[i] = acc;\n";
  return sb.grid("conv", product(y.shape), c.str());
}

// max_pool (f32, f64, i32, u32, bit-exact: ops.md's max, so NaN wins and +0.0 beats -0.0) and
// avg_pool (f32, f64; the mean over the window's cells inside x unless count_include_pad), one
// invocation per output element. Padded cells never enter a window.
KernelShader pool(ShaderBuilder& sb, const OpIn& op) {
  const bool is_max = op.op == "max_pool";
  sb.check_settings(
      op, is_max ? std::set<std::string>{"kernel", "strides", "pads", "dilations"}
                 : std::set<std::string>{"kernel", "strides", "pads", "count_include_pad"});
  if (op.inputs.size() != 1) invalid(op_where(op) + " takes one input");
  const ValueIn& x = sb.value(op.inputs[0]);
  const ValueIn& y = sb.value(op.output);
  const std::string t = sb.type_of(y.name);
  if (sb.type_of(x.name) != t || (!is_max && !is_float_type(t)))
    unsupported(op_where(op) + " on " + x.dtype + " is not supported (" +
                (is_max ? "f32, f64, i32, u32" : "f32, f64") + " are)");
  if (!sb.setting(op, "kernel")) invalid(op_where(op) + " needs 'kernel'");
  std::vector<uint64_t> kernel;
  for (int64_t k : sb.int_list(op, "kernel")) {
    if (k < 1) invalid(op_where(op) + ": 'kernel' has " + std::to_string(k));
    kernel.push_back(static_cast<uint64_t>(k));
  }
  const Window g = window_of(sb, op, x, y, kernel);
  if (y.shape[1] != g.channels) invalid(op_where(op) + ": the output's channels differ");
  bool include_pad = false;
  if (const json::value* c = sb.setting(op, "count_include_pad")) {
    if (!c->is_bool()) invalid(op_where(op) + ": count_include_pad must be a boolean");
    include_pad = c->as_bool();
  }
  sb.check_count(std::max(product(x.shape), product(y.shape)), "element count");
  const std::string lowest = t == "float"    ? "uintBitsToFloat(0xff800000u)"
                             : t == "double" ? "packDouble2x32(uvec2(0u, 0xfff00000u))"
                             : t == "int"    ? "int(0x80000000u)"
                                             : "0u";
  const std::string combine = is_float_type(t) ? "acc = oi_max(acc, v);" : "acc = max(acc, v);";
  std::ostringstream c;
  c << "    const uint ow = i % " << u(g.out_w) << ", oh = (i / " << u(g.out_w) << ") % "
    << u(g.out_h) << ";\n"
    << "    const uint xp = (i / " << u(g.out_h * g.out_w) << ") * " << u(g.in_h * g.in_w) << ";\n"
    << "    " << t << " acc = " << (is_max ? lowest : t + "(0)") << ";\n"
    << "    uint cells = 0u;\n"
    << "    for (uint kh = 0u; kh < " << u(g.k_h) << "; ++kh) {\n"
    << "      const int ih = int(oh * " << u(g.stride_h) << " + kh * " << u(g.dil_h) << ") - "
    << g.pad_top << ";\n"
    << "      if (ih < 0 || ih >= " << g.in_h << ") continue;\n"
    << "      for (uint kw = 0u; kw < " << u(g.k_w) << "; ++kw) {\n"
    << "        const int iw = int(ow * " << u(g.stride_w) << " + kw * " << u(g.dil_w) << ") - "
    << g.pad_left << ";\n"
    << "        if (iw < 0 || iw >= " << g.in_w << ") continue;\n"
    << "        const " << t << " v = " << sb.buffer(x.name) << "[xp + uint(ih) * " << u(g.in_w)
    << " + uint(iw)];\n"
    << "        " << (is_max ? combine : "acc += v;") << "\n"
    << "        ++cells;\n"
    << "      }\n    }\n";
  if (!is_max)
    c << "    acc = acc / " << t << "(" << (include_pad ? u(g.k_h * g.k_w) : std::string("cells"))
      << ");\n";
  c << "    " << sb.buffer(y.name) << "[i] = acc;\n";
  return sb.grid(op.op, product(y.shape), c.str());
}

}  // namespace

void register_conv_ops(OpRegistry& r) {
  r.ops["conv"] = conv;
  r.ops["max_pool"] = pool;
  r.ops["avg_pool"] = pool;
}

}  // namespace oi::glsl
