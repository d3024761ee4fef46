// Ops over rows (ops-nn.md; f32, f64): softmax and log_softmax over `axis`, layer_norm and
// rms_norm over the trailing axes from `axis`, one invocation per row, a few passes over it in
// order; batch_norm per channel, one invocation per element.
// GLSL's exp, sqrt and division are not correctly rounded; ops-nn.md's tolerance for them, (1e-5,
// 1e-4), covers it.
#include "ops.hpp"

namespace oi::glsl {
namespace {

// Input k, of GLSL type `t` ("float" or "double").
const ValueIn& typed_input(ShaderBuilder& sb, const OpIn& op, size_t k, const std::string& t) {
  const ValueIn& v = sb.value(op.inputs.at(k));
  if (sb.type_of(v.name) != t || !is_float_type(t))
    unsupported(op_where(op) + " on " + v.dtype +
                " is not supported (f32 and f64 are, every operand alike)");
  return v;
}

size_t axis_of(const OpIn& op, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    invalid(op_where(op) + ": axis " + std::to_string(axis) + " is out of range");
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

// softmax (max-subtracted): the max, the sum of exponentials, then the normalized outputs;
// log_softmax the same passes ending in x - max - log(sum). f32 uses GLSL's exp and log; f64
// math_f64.glsl's exp_f64 (relative error below 1e-17) and log_f64.
KernelShader softmax_rows(ShaderBuilder& sb, const OpIn& op, const std::string& name, bool log) {
  sb.check_settings(op, {"axis"});
  if (op.inputs.size() != 1) invalid(op_where(op) + ": " + name + " takes one input");
  const ValueIn& out = sb.value(op.output);
  const std::string T = sb.type_of(out.name);
  const ValueIn& in = typed_input(sb, op, 0, T);
  if (in.shape != out.shape || in.shape.empty())
    invalid(op_where(op) + ": " + name +
            " needs an input of rank 1 or more and an output of its shape");
  const size_t axis = axis_of(op, sb.int_setting(op, "axis", -1), in.shape.size());
  const uint64_t L = in.shape[axis], inner = product(in.shape, axis + 1);
  sb.check_count(product(in.shape), "element count");
  const bool d = T == "double";
  if (d) sb.use_f64_math(op);
  const std::string exp = d ? "exp_f64(" : "exp(", ln = d ? "log_f64(" : "log(";
  const std::string X = sb.buffer(in.name), Y = sb.buffer(out.name);
  const std::string at = "[base + k * " + u(inner) + "]";
  std::ostringstream b;
  b << "    const uint base = (i / " << u(inner) << ") * " << u(L * inner) << " + i % " << u(inner)
    << ";\n"
    << "    " << T
    << " m = " << (d ? "packDouble2x32(uvec2(0u, 0xfff00000u))" : "uintBitsToFloat(0xff800000u)")
    << ";\n"
    << "    for (uint k = 0u; k < " << u(L) << "; ++k) m = oi_max(m, " << X << at << ");\n"
    << "    " << T << " s = " << T << "(0);\n"
    << "    for (uint k = 0u; k < " << u(L) << "; ++k) s += " << exp << X << at << " - m);\n";
  if (log) {
    b << "    const " << T << " ls = " << ln << "s);\n"
      << "    for (uint k = 0u; k < " << u(L) << "; ++k) " << Y << at << " = " << X << at
      << " - m - ls;\n";
  } else {
    b << "    for (uint k = 0u; k < " << u(L) << "; ++k) " << Y << at << " = " << exp << X << at
      << " - m) / s;\n";
  }
  return sb.grid(name, L == 0 ? 0 : product(in.shape) / L, b.str());
}

KernelShader softmax(ShaderBuilder& sb, const OpIn& op) {
  return softmax_rows(sb, op, "softmax", false);
}

KernelShader log_softmax(ShaderBuilder& sb, const OpIn& op) {
  return softmax_rows(sb, op, "log_softmax", true);
}

// batch_norm(x, scale, bias, mean, var) in inference form over channel axis 1:
// (x - mean) / sqrt(var + epsilon) * scale + bias, one invocation per element.
KernelShader batch_norm(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"epsilon"});
  if (op.inputs.size() != 5)
    invalid(op_where(op) + ": batch_norm takes x, scale, bias, mean and var");
  const ValueIn& y = sb.value(op.output);
  const std::string T = sb.type_of(y.name);
  const ValueIn& x = typed_input(sb, op, 0, T);
  if (y.shape != x.shape || x.shape.size() < 2)
    invalid(op_where(op) + ": the output must have x's shape, x a rank of 2 or more");
  const uint64_t C = x.shape[1], inner = product(x.shape, 2);
  std::vector<std::string> p;
  for (size_t k = 1; k < 5; ++k) {
    const ValueIn& v = typed_input(sb, op, k, T);
    if (product(v.shape) != C)
      invalid(op_where(op) + ": '" + v.name + "' needs the " + std::to_string(C) + " channels");
    p.push_back(sb.buffer(v.name) + "[c]");
  }
  double eps = 1e-5;
  if (const json::value* e = sb.setting(op, "epsilon")) {
    if (!e->is_number()) invalid(op_where(op) + ": epsilon must be a number");
    eps = e->to_number<double>();
  }
  sb.check_count(product(x.shape), "element count");
  std::ostringstream b;
  b << "    const uint c = (i / " << u(inner) << ") % " << u(C) << ";\n"
    << "    " << sb.buffer(y.name) << "[i] = (" << sb.buffer(x.name) << "[i] - " << p[2]
    << ") / sqrt(" << p[3] << " + " << literal(json::value(eps), T, op_where(op)) << ") * " << p[0]
    << " + " << p[1] << ";\n";
  return sb.grid("batch_norm", product(x.shape), b.str());
}

// layer_norm(x, scale[, bias]): mean, then the mean of squared deviations (two passes, so no
// cancellation), then (x - mean) / sqrt(var + epsilon) * scale + bias.
KernelShader layer_norm(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"axis", "epsilon"});
  if (op.inputs.size() != 2 && op.inputs.size() != 3)
    invalid(op_where(op) + ": layer_norm takes x, scale and an optional bias");
  const ValueIn& y = sb.value(op.output);
  const std::string T = sb.type_of(y.name);
  const ValueIn& x = typed_input(sb, op, 0, T);
  const ValueIn& scale = typed_input(sb, op, 1, T);
  const ValueIn* bias = op.inputs.size() == 3 ? &typed_input(sb, op, 2, T) : nullptr;
  if (y.shape != x.shape || x.shape.empty())
    invalid(op_where(op) + ": the output must have x's shape, x a rank of 1 or more");
  const size_t axis = axis_of(op, sb.int_setting(op, "axis", -1), x.shape.size());
  const std::vector<uint64_t> trailing(x.shape.begin() + static_cast<ptrdiff_t>(axis),
                                       x.shape.end());
  const uint64_t L = product(trailing);
  if (product(scale.shape) != L || (bias && product(bias->shape) != L))
    invalid(op_where(op) + ": scale and bias need the normalized axes' " + std::to_string(L) +
            " elements");
  double eps = 1e-5;
  if (const json::value* e = sb.setting(op, "epsilon")) {
    if (!e->is_number()) invalid(op_where(op) + ": epsilon must be a number");
    eps = e->to_number<double>();
  }
  sb.check_count(product(x.shape), "element count");
  const std::string X = sb.buffer(x.name), Y = sb.buffer(y.name);
  const std::string row = "[base + k]";
  std::ostringstream b;
  b << "    const uint base = i * " << u(L) << ";\n"
    << "    " << T << " s = " << T << "(0);\n"
    << "    for (uint k = 0u; k < " << u(L) << "; ++k) s += " << X << row << ";\n"
    << "    const " << T << " mean = s / " << T << "(" << u(L) << ");\n"
    << "    " << T << " v = " << T << "(0);\n"
    << "    for (uint k = 0u; k < " << u(L) << "; ++k) { const " << T << " d = " << X << row
    << " - mean; v += d * d; }\n"
    << "    const " << T << " inv = " << T << "(1) / sqrt(v / " << T << "(" << u(L) << ") + "
    << literal(json::value(eps), T, op_where(op)) << ");\n"
    << "    for (uint k = 0u; k < " << u(L) << "; ++k) " << Y << row << " = (" << X << row
    << " - mean) * inv * " << sb.buffer(scale.name) << "[k]"
    << (bias ? " + " + sb.buffer(bias->name) + "[k]" : std::string()) << ";\n";
  return sb.grid("layer_norm", L == 0 ? 0 : product(x.shape) / L, b.str());
}

// rms_norm(x, scale): x / sqrt(mean(x^2) + epsilon) * scale over the axes from `axis`.
KernelShader rms_norm(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"axis", "epsilon"});
  if (op.inputs.size() != 2) invalid(op_where(op) + ": rms_norm takes x and scale");
  const ValueIn& y = sb.value(op.output);
  const std::string T = sb.type_of(y.name);
  const ValueIn& x = typed_input(sb, op, 0, T);
  const ValueIn& scale = typed_input(sb, op, 1, T);
  if (y.shape != x.shape || x.shape.empty())
    invalid(op_where(op) + ": the output must have x's shape, x a rank of 1 or more");
  const size_t axis = axis_of(op, sb.int_setting(op, "axis", -1), x.shape.size());
  const uint64_t L = product(x.shape, axis);
  if (product(scale.shape) != L)
    invalid(op_where(op) + ": scale needs the normalized axes' " + std::to_string(L) + " elements");
  double eps = 1e-6;
  if (const json::value* e = sb.setting(op, "epsilon")) {
    if (!e->is_number()) invalid(op_where(op) + ": epsilon must be a number");
    eps = e->to_number<double>();
  }
  sb.check_count(product(x.shape), "element count");
  const std::string X = sb.buffer(x.name), Y = sb.buffer(y.name);
  const std::string row = "[base + k]";
  std::ostringstream b;
  b << "    const uint base = i * " << u(L) << ";\n"
    << "    " << T << " s = " << T << "(0);\n"
    << "    for (uint k = 0u; k < " << u(L) << "; ++k) s += " << X << row << " * " << X << row
    << ";\n"
    << "    const " << T << " inv = " << T << "(1) / sqrt(s / " << T << "(" << u(L) << ") + "
    << literal(json::value(eps), T, op_where(op)) << ");\n"
    << "    for (uint k = 0u; k < " << u(L) << "; ++k) " << Y << row << " = " << X << row
    << " * inv * " << sb.buffer(scale.name) << "[k];\n";
  return sb.grid("rms_norm", L == 0 ? 0 : product(x.shape) / L, b.str());
}

}  // namespace

void register_row_ops(OpRegistry& r) {
  r.ops["softmax"] = softmax;
  r.ops["log_softmax"] = log_softmax;
  r.ops["batch_norm"] = batch_norm;
  r.ops["layer_norm"] = layer_norm;
  r.ops["rms_norm"] = rms_norm;
}

}  // namespace oi::glsl
