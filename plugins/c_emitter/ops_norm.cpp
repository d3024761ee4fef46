// softmax, log_softmax, layer_norm, rms_norm and batch_norm in generated C (ops-nn.md; f32,
// f64), written as the CPU backend's scalar paths compute them (softmax.hpp, norm.hpp,
// batch_norm.cpp): statistics accumulate in the dtype, in index order, layer_norm's variance
// corrected by the deviations' sum as there. Its f32 rows may take vector paths instead, hence
// ops-nn.md's tolerance.
//   softmax over `axis`: m = max (a NaN ends the scan and propagates), s = sum of e^(x - m),
//     then e^(x - m) / s (log_softmax: (x - m) - log(s));
//   layer_norm over axes `axis`..: y = (x - mean) / sqrt(var + eps) * scale [+ bias], var the
//     population variance; rms_norm: y = x / sqrt(mean(x^2) + eps) * scale.
#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

int64_t norm_axis(const json::object& settings, size_t rank, const std::string& where) {
  int64_t axis = int_setting(settings, "axis", -1, where);
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) invalid_plan(where + ": axis out of range");
  return axis < 0 ? axis + r : axis;
}

void softmax(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"axis"}, where);
  const Value& x = whole_operand(env, op.at("inputs").as_array().at(0), op);
  const Value& y = env.value(str(op.at("output")));
  if ((y.dtype != "f32" && y.dtype != "f64") || x.dtype != y.dtype || x.shape != y.shape)
    throw LibraryInstead("c emitter: " + where + " on " + x.dtype +
                         ": left to the C kernel library");
  if (y.numel() == 0) return;
  const int64_t axis = norm_axis(settings, x.shape.size(), where);
  const uint64_t len = x.shape[axis], inner = strides_of(x.shape)[axis];
  const uint64_t outer = x.numel() / (len * inner);
  const std::string T = c_type(y.dtype), e = y.dtype == "f32" ? "expf" : "exp";
  c << "    for (size_t r = 0; r < " << u(outer * inner) << "; ++r) {\n"
    << "      const size_t base = r / " << u(inner) << " * " << u(len * inner) << " + r % "
    << u(inner) << ";\n"
    << "      " << T << " m = -(" << T << ")INFINITY;\n"
    << "      for (size_t k = 0; k < " << u(len) << " && !isnan(m); ++k) {\n"
    << "        const " << T << " v = p_" << x.name << "[base + k * " << u(inner) << "];\n"
    << "        if (v > m || isnan(v)) m = v;\n      }\n"
    << "      " << T << " sum = 0;\n"
    << "      for (size_t k = 0; k < " << u(len) << "; ++k) sum += " << e << "(p_" << x.name
    << "[base + k * " << u(inner) << "] - m);\n"
    << "      for (size_t k = 0; k < " << u(len) << "; ++k)\n";
  if (str(op.at("op")) == "log_softmax")
    c << "        o[base + k * " << u(inner) << "] = (p_" << x.name << "[base + k * " << u(inner)
      << "] - m) - " << (y.dtype == "f32" ? "logf" : "log") << "(sum);\n    }\n";
  else
    c << "        o[base + k * " << u(inner) << "] = " << e << "(p_" << x.name << "[base + k * "
      << u(inner) << "] - m) / sum;\n    }\n";
}

// batch_norm(x, scale, bias, mean, var) over channel axis 1 of x [N, C, ...] (ops-nn.md, the
// inference form): per channel mul = scale / sqrt(var + eps), then (x - mean) * mul + bias.
void batch_norm(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"epsilon"}, where);
  const auto& ins = op.at("inputs").as_array();
  if (ins.size() != 5) invalid_plan(where + " takes x, scale, bias, mean and var");
  const Value& x = whole_operand(env, ins.at(0), op);
  const Value& y = env.value(str(op.at("output")));
  if ((y.dtype != "f32" && y.dtype != "f64") || x.dtype != y.dtype || x.shape != y.shape ||
      x.shape.size() < 2)
    throw LibraryInstead("c emitter: " + where + " on " + x.dtype +
                         ": left to the C kernel library");
  const uint64_t channels = x.shape[1];
  std::vector<std::string> p;
  for (size_t i = 1; i < 5; ++i) {
    const Value& v = whole_operand(env, ins.at(i), op);
    if (v.dtype != y.dtype || v.numel() != channels)
      invalid_plan(where + ": scale, bias, mean and var need one value per channel");
    p.push_back("p_" + v.name);
  }
  if (y.numel() == 0) return;
  const uint64_t inner = x.numel() / (x.shape[0] * channels);
  double eps = 1e-5;
  if (settings.contains("epsilon")) eps = settings.at("epsilon").to_number<double>();
  const std::string T = c_type(y.dtype), sq = y.dtype == "f32" ? "sqrtf" : "sqrt";
  c << "    for (size_t plane = 0; plane < " << u(x.shape[0] * channels) << "; ++plane) {\n"
    << "      const size_t ch = plane % " << u(channels) << ";\n"
    << "      const " << T << " mul = " << p[0] << "[ch] / " << sq << "(" << p[3] << "[ch] + (" << T
    << ")" << number(eps) << ");\n"
    << "      const " << T << " mu = " << p[2] << "[ch], b = " << p[1] << "[ch];\n"
    << "      for (size_t i = plane * " << u(inner) << "; i < (plane + 1u) * " << u(inner)
    << "; ++i)\n        o[i] = (p_" << x.name << "[i] - mu) * mul + b;\n    }\n";
}

void norm(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const bool rms = str(op.at("op")) == "rms_norm";
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"axis", "epsilon"}, where);
  const auto& ins = op.at("inputs").as_array();
  const Value& x = whole_operand(env, ins.at(0), op);
  const Value& scale = whole_operand(env, ins.at(1), op);
  const Value* bias = ins.size() > 2 && !rms ? &whole_operand(env, ins.at(2), op) : nullptr;
  const Value& y = env.value(str(op.at("output")));
  if ((y.dtype != "f32" && y.dtype != "f64") || x.dtype != y.dtype || scale.dtype != y.dtype ||
      (bias && bias->dtype != y.dtype) || x.shape != y.shape)
    throw LibraryInstead("c emitter: " + where + " on " + x.dtype +
                         ": left to the C kernel library");
  const int64_t axis = norm_axis(settings, x.shape.size(), where);
  uint64_t rows = 1, len = 1;
  for (size_t k = 0; k < x.shape.size(); ++k)
    (static_cast<int64_t>(k) < axis ? rows : len) *= x.shape[k];
  if (scale.numel() != len || (bias && bias->numel() != len))
    invalid_plan(where + ": scale and bias need the normalized axes' elements");
  if (rows == 0 || len == 0) return;
  double eps = rms ? 1e-6 : 1e-5;
  if (settings.contains("epsilon")) eps = settings.at("epsilon").to_number<double>();
  const std::string T = c_type(y.dtype), sq = y.dtype == "f32" ? "sqrtf" : "sqrt";
  c << "    const " << T << " n = (" << T << ")" << len << ", eps = (" << T << ")" << number(eps)
    << ";\n"
    << "    for (size_t r = 0; r < " << u(rows) << "; ++r) {\n"
    << "      const " << T << "* xr = p_" << x.name << " + r * " << u(len) << ";\n"
    << "      " << T << "* yr = o + r * " << u(len) << ";\n"
    << "      " << T << " mean = 0;\n";
  if (!rms)
    c << "      " << T << " total = 0;\n"
      << "      for (size_t k = 0; k < " << u(len) << "; ++k) total += xr[k];\n"
      << "      mean = total / n;\n";
  // The corrected two-pass variance (as the CPU backend's rows): the deviations' own sum
  // measures the rounding error of the mean and is added back, so rows far from 0 keep their
  // precision.
  c << "      " << T << " sq = 0" << (rms ? "" : ", dsum = 0") << ";\n"
    << "      for (size_t k = 0; k < " << u(len) << "; ++k) {\n"
    << "        const " << T << " d = xr[k] - mean;\n        sq += d * d;\n"
    << (rms ? "" : "        dsum += d;\n") << "      }\n"
    << "      " << T << " var = sq / n;\n";
  if (!rms)
    c << "      const " << T << " corr = dsum / n;\n"
      << "      mean += corr;\n"
      << "      var = var - corr * corr > 0 ? var - corr * corr : 0;\n";
  c << "      const " << T << " inv = (" << T << ")1 / " << sq << "(var + eps);\n"
    << "      for (size_t k = 0; k < " << u(len) << "; ++k) {\n"
    << "        " << T << " v = (xr[k] - mean) * inv * p_" << scale.name << "[k];\n";
  if (bias) c << "        v += p_" << bias->name << "[k];\n";
  c << "        yr[k] = v;\n      }\n    }\n";
}

}  // namespace

void register_norm_ops(OpTable& t) {
  t.ops["softmax"] = softmax;
  t.ops["log_softmax"] = softmax;
  t.ops["batch_norm"] = batch_norm;
  t.ops["layer_norm"] = norm;
  t.ops["rms_norm"] = norm;
}

}  // namespace oi::c_emitter
