// attention(q, k, v[, mask]) in generated C (ops-nn.md), f32 and f64: q [..., Tq, D],
// k [..., Tk, D], v [..., Tk, Dv] -> [..., Tq, Dv], softmax(q·kᵀ·scale + mask)·v with the
// leading dims broadcast (numpy). Per query row, as the CPU backend's kernel defines it: each
// score is the dot product in d order times `scale` (default 1/sqrt(D)); a bool mask drops a
// key outright (even a NaN score), a float mask is added; `causal` hides keys
// j > i + (Tk - Tq); the weights are e^(s - max) over the kept keys (a NaN score never wins
// the max and makes the row NaN), and a row whose keys are all dropped gives 0, not NaN. The
// backend splits rows into key blocks with an online softmax and sums its dot products four
// ways, so results agree within ops-nn.md's tolerance, not bit for bit.
#include <cmath>

#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

std::vector<uint64_t> lead_of(const Value& v) {
  return std::vector<uint64_t>(v.shape.begin(), v.shape.end() - 2);
}

void attention(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"scale", "causal"}, where);
  const auto& ins = op.at("inputs").as_array();
  if (ins.size() != 3 && ins.size() != 4)
    invalid_plan(where + " takes q, k, v and an optional mask");
  const Value& q = whole_operand(env, ins.at(0), op);
  const Value& k = whole_operand(env, ins.at(1), op);
  const Value& v = whole_operand(env, ins.at(2), op);
  const Value* mask = ins.size() == 4 ? &whole_operand(env, ins.at(3), op) : nullptr;
  const Value& y = env.value(str(op.at("output")));
  if ((y.dtype != "f32" && y.dtype != "f64") || q.dtype != y.dtype || k.dtype != y.dtype ||
      v.dtype != y.dtype || (mask && mask->dtype != "bool" && mask->dtype != y.dtype))
    throw LibraryInstead("c emitter: " + where + " on " + q.dtype +
                         ": left to the C kernel library");
  if (q.shape.size() < 2 || k.shape.size() < 2 || v.shape.size() < 2 || y.shape.size() < 2)
    invalid_plan(where + ": q, k and v need two trailing axes");
  const uint64_t tq = q.shape[q.shape.size() - 2], d = q.shape.back();
  const uint64_t tk = k.shape[k.shape.size() - 2], dv = v.shape.back();
  if (k.shape.back() != d || v.shape[v.shape.size() - 2] != tk ||
      y.shape[y.shape.size() - 2] != tq || y.shape.back() != dv)
    invalid_plan(where + ": q, k, v and the output do not fit together");
  const std::vector<uint64_t> out_lead = lead_of(y);
  uint64_t batches = 1;
  for (uint64_t n : out_lead) batches *= n;
  if (y.numel() == 0) return;
  const bool causal = settings.contains("causal") && settings.at("causal").as_bool();
  const double scale = settings.contains("scale") ? settings.at("scale").to_number<double>()
                       : d > 0                    ? 1.0 / std::sqrt(static_cast<double>(d))
                                                  : 1.0;
  const std::string T = c_type(y.dtype), f = y.dtype == "f32" ? "f" : "";
  const std::string scores = env.scratch((tk ? tk : 1) * dtype_size(y.dtype));
  const std::string acc = env.scratch((dv ? dv : 1) * dtype_size(y.dtype));
  std::vector<uint64_t> mask_full = out_lead;
  mask_full.push_back(tq);
  mask_full.push_back(tk);
  c << "    " << T << "* const sc = (" << T << "*)s->" << scores << ";\n"
    << "    " << T << "* const acc = (" << T << "*)s->" << acc << ";\n"
    << "    const " << T << " scale = (" << T << ")" << number(scale) << ";\n"
    << "    for (size_t bt = 0; bt < " << u(batches) << "; ++bt) {\n"
    << "      size_t qb, kb, vb;\n"
    << "      {\n        const size_t i = bt;\n        (void)i;\n"
    << "        qb = " << index_expr(lead_of(q), out_lead) << ";\n"
    << "        kb = " << index_expr(lead_of(k), out_lead) << ";\n"
    << "        vb = " << index_expr(lead_of(v), out_lead) << ";\n      }\n"
    << "      for (size_t r = 0; r < " << u(tq) << "; ++r) {\n"
    << "        const " << T << "* qr = p_" << q.name << " + (qb * " << u(tq) << " + r) * " << u(d)
    << ";\n";
  if (causal)
    c << "        const int64_t vis = (int64_t)r + 1 + " << static_cast<int64_t>(tk - tq)
      << "ll;\n        const size_t seen = vis < 0 ? 0u : vis > " << tk << "ll ? " << u(tk)
      << " : (size_t)vis;\n";
  else
    c << "        const size_t seen = " << u(tk) << ";\n";
  c << "        " << T << " m = -(" << T << ")INFINITY;\n"
    << "        for (size_t j = 0; j < " << u(tk) << "; ++j) {\n"
    << "          " << T << " sv = -(" << T << ")INFINITY;\n"
    << "          if (j < seen) {\n"
    << "            const " << T << "* kr = p_" << k.name << " + (kb * " << u(tk) << " + j) * "
    << u(d) << ";\n"
    << "            " << T << " dot = 0;\n"
    << "            for (size_t p = 0; p < " << u(d) << "; ++p) dot += qr[p] * kr[p];\n"
    << "            sv = " << (d > 0 ? "dot * scale" : "(" + T + ")0") << ";\n";
  if (mask) {
    c << "            const size_t i = (bt * " << u(tq) << " + r) * " << u(tk) << " + j;\n"
      << "            (void)i;\n"
      << "            const size_t mi = " << index_expr(mask->shape, mask_full) << ";\n";
    if (mask->dtype == "bool")
      c << "            if (!p_" << mask->name << "[mi]) sv = -(" << T << ")INFINITY;\n";
    else
      c << "            sv += p_" << mask->name << "[mi];\n";
  }
  c << "          }\n"
    << "          sc[j] = sv;\n"
    << "          if (sv > m) m = sv;\n        }\n"
    << "        " << T << " l = 0;\n"
    << "        if (m == -(" << T << ")INFINITY) {\n"
    << "          /* every key dropped (weight 0), unless a NaN score makes the row NaN */\n"
    << "          for (size_t j = 0; j < " << u(tk) << "; ++j) {\n"
    << "            if (isnan(sc[j])) l = (" << T << ")NAN;\n"
    << "            sc[j] = isnan(sc[j]) ? sc[j] : (" << T << ")0;\n          }\n"
    << "        } else {\n"
    << "          for (size_t j = 0; j < " << u(tk) << "; ++j) {\n"
    << "            sc[j] = exp" << f << "(sc[j] - m);\n            l += sc[j];\n          }\n"
    << "        }\n"
    << "        for (size_t e = 0; e < " << u(dv) << "; ++e) acc[e] = 0;\n"
    << "        for (size_t j = 0; j < " << u(tk) << "; ++j) {\n"
    << "          const " << T << " w = sc[j];\n"
    << "          const " << T << "* vr = p_" << v.name << " + (vb * " << u(tk) << " + j) * "
    << u(dv) << ";\n"
    << "          for (size_t e = 0; e < " << u(dv) << "; ++e) acc[e] += w * vr[e];\n"
    << "        }\n"
    << "        const " << T << " inv = l == 0 ? (" << T << ")0 : (" << T << ")1 / l;\n"
    << "        " << T << "* yr = o + (bt * " << u(tq) << " + r) * " << u(dv) << ";\n"
    << "        for (size_t e = 0; e < " << u(dv) << "; ++e) yr[e] = l == 0 ? (" << T
    << ")0 : acc[e] * inv;\n"
    << "      }\n    }\n";
}

}  // namespace

void register_attention_ops(OpTable& t) {
  t.ops["attention"] = attention;
}

}  // namespace oi::c_emitter
