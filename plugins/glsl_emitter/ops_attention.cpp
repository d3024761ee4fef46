// attention (ops-nn.md) on f32: softmax(q·kᵀ·scale + mask)·v, one invocation per query row.
// Leading dims of q, k, v broadcast to the output's; the mask (bool: false = masked, or f32 added
// to the scores) broadcasts to [..., Tq, Tk]; `causal` hides keys past i + (Tk - Tq). A row
// whose keys are all masked gives zeros. The scores are computed twice (for the max, then for
// the weights), the weighted values summed in a local array of Dv floats; GLSL's exp is within
// ops-nn.md's (1e-5, 1e-4).
#include <cmath>

#include "ops.hpp"

namespace oi::glsl {
namespace {

constexpr uint64_t kMaxDv = 512;  // the local accumulator's length

KernelShader attention(ShaderBuilder& sb, const OpIn& op) {
  sb.check_settings(op, {"scale", "causal"});
  if (op.inputs.size() != 3 && op.inputs.size() != 4)
    invalid(op_where(op) + ": attention takes q, k, v and an optional mask");
  const ValueIn& q = sb.value(op.inputs[0]);
  const ValueIn& k = sb.value(op.inputs[1]);
  const ValueIn& v = sb.value(op.inputs[2]);
  const ValueIn* mask = op.inputs.size() == 4 ? &sb.value(op.inputs[3]) : nullptr;
  const ValueIn& y = sb.value(op.output);
  for (const ValueIn* x : {&q, &k, &v, &y})
    if (x->dtype != "f32")
      unsupported(op_where(op) + " on " + x->dtype + " is not supported (f32 is)");
  if (mask && mask->dtype != "bool" && mask->dtype != "f32")
    unsupported(op_where(op) + ": a " + mask->dtype + " mask is not supported (bool and f32 are)");
  if (q.shape.size() < 2 || k.shape.size() < 2 || v.shape.size() < 2 || y.shape.size() < 2)
    invalid(op_where(op) + ": q, k, v and the output need rank 2 or more");
  const uint64_t Tq = q.shape[q.shape.size() - 2], D = q.shape.back();
  const uint64_t Tk = k.shape[k.shape.size() - 2], Dv = v.shape.back();
  if (k.shape.back() != D || v.shape[v.shape.size() - 2] != Tk ||
      y.shape[y.shape.size() - 2] != Tq || y.shape.back() != Dv)
    invalid(op_where(op) + ": the shapes of q, k, v and the output do not agree");
  if (Dv > kMaxDv)
    unsupported(op_where(op) + ": value width " + std::to_string(Dv) + " is more than " +
                std::to_string(kMaxDv));
  const std::vector<uint64_t> lead(y.shape.begin(), y.shape.end() - 2);
  auto lead_of = [](const ValueIn& x) {
    return std::vector<uint64_t>(x.shape.begin(), x.shape.end() - 2);
  };
  std::vector<uint64_t> scores = lead;
  scores.push_back(Tq);
  scores.push_back(Tk);
  if (mask && mask->shape.size() > scores.size())
    invalid(op_where(op) + ": the mask has a higher rank than the scores");
  bool causal = false;
  if (const json::value* c = sb.setting(op, "causal")) {
    if (!c->is_bool()) invalid(op_where(op) + ": causal must be a boolean");
    causal = c->as_bool();
  }
  double scale = D ? 1.0 / std::sqrt(static_cast<double>(D)) : 1.0;
  if (const json::value* sc = sb.setting(op, "scale")) {
    if (!sc->is_number()) invalid(op_where(op) + ": scale must be a number");
    scale = sc->to_number<double>();
  }
  sb.check_count(std::max({product(q.shape), product(k.shape), product(v.shape), product(y.shape),
                           product(scores)}),
                 "element count");
  const std::string Q = sb.buffer(q.name), K = sb.buffer(k.name), V = sb.buffer(v.name),
                    Y = sb.buffer(y.name);
  std::ostringstream b;
  b << "    const uint bt = i / " << u(Tq) << ", tq = i % " << u(Tq) << ";\n"
    << "    const uint qo = (" << broadcast_index(lead_of(q), lead, "bt") << " * " << u(Tq)
    << " + tq) * " << u(D) << ";\n"
    << "    const uint ko = " << broadcast_index(lead_of(k), lead, "bt") << " * " << u(Tk * D)
    << ";\n"
    << "    const uint vo = " << broadcast_index(lead_of(v), lead, "bt") << " * " << u(Tk * Dv)
    << ";\n"
    << "    const float scale = " << literal(json::value(scale), "float", op_where(op)) << ";\n"
    << "    float m = uintBitsToFloat(0xff800000u);\n"
    << "    float acc[" << Dv << "];\n"
    << "    for (uint c = 0u; c < " << u(Dv) << "; ++c) acc[c] = 0.0;\n"
    << "    float l = 0.0;\n"
    << "    for (uint pass = 0u; pass < 2u; ++pass) {\n"
    << "      for (uint j = 0u; j < " << u(Tk) << "; ++j) {\n";
  if (causal) b << "        if (j > tq + " << u(Tk - std::min(Tk, Tq)) << ") continue;\n";
  if (mask && mask->dtype == "bool")
    b << "        if (!"
      << sb.load(mask->name, broadcast_index(mask->shape, scores, "(i * " + u(Tk) + " + j)"))
      << ") continue;\n";
  b << "        float s = 0.0;\n"
    << "        for (uint d = 0u; d < " << u(D) << "; ++d) s += " << Q << "[qo + d] * " << K
    << "[ko + j * " << u(D) << " + d];\n"
    << "        s *= scale;\n";
  if (mask && mask->dtype == "f32")
    b << "        s += "
      << sb.load(mask->name, broadcast_index(mask->shape, scores, "(i * " + u(Tk) + " + j)"))
      << ";\n";
  b << "        if (pass == 0u) { m = max(m, s); continue; }\n"
    << "        if (isinf(m) && m < 0.0) continue;\n"
    << "        const float p = exp(s - m);\n"
    << "        l += p;\n"
    << "        for (uint c = 0u; c < " << u(Dv) << "; ++c) acc[c] += p * " << V << "[vo + j * "
    << u(Dv) << " + c];\n"
    << "      }\n    }\n"
    << "    const float inv = l > 0.0 ? 1.0 / l : 0.0;  // every key masked: zeros\n"
    << "    for (uint c = 0u; c < " << u(Dv) << "; ++c) " << Y << "[i * " << u(Dv)
    << " + c] = acc[c] * inv;\n";
  return sb.grid("attention", product(lead) * Tq, b.str());
}

}  // namespace

void register_attention_ops(OpRegistry& r) {
  r.ops["attention"] = attention;
}

}  // namespace oi::glsl
