// matmul [M, K] x [K, N] in generated C (f32, f64), the head of a kernel whose elementwise
// epilogue follows. Accumulated into a per-kernel scratch buffer (the output may be an input,
// or live in registers), cache-blocked over rows, depth and columns with the innermost loop
// contiguous; each element sums in k order in its dtype (ops.md: f32 for f32, f64 for f64).
#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

std::string matmul(KernelEnv& env, const json::object& k, std::ostringstream& c,
                   std::string& value) {
  const auto& head = k.at("ops").as_array().at(0).as_object();
  const std::string where = "matmul (line " + json::serialize(head.at("line")) + ")";
  if (!head.at("settings").as_object().empty())
    throw CUnsupported("c emitter: " + where + " with settings is not supported yet");
  std::vector<uint64_t> shape;
  for (const auto& d : k.at("shape").as_array()) shape.push_back(d.to_number<uint64_t>());
  const auto& ins = head.at("inputs").as_array();
  const std::string an = str(ins.at(0)), bn = str(ins.at(1)), out = str(head.at("output"));
  if (an.find('[') != std::string::npos || bn.find('[') != std::string::npos)
    throw CUnsupported("c emitter: " + where + " on a table entry is not supported yet");
  const Value &a = env.value(an), &b = env.value(bn), &o = env.value(out);
  if (a.shape.size() != 2 || b.shape.size() != 2 || shape.size() != 2)
    throw CUnsupported("c emitter: " + where + " of rank other than 2 is not supported yet");
  if ((o.dtype != "f32" && o.dtype != "f64") || a.dtype != o.dtype || b.dtype != o.dtype)
    throw CUnsupported("c emitter: " + where + " on " + a.dtype + " is not supported yet");
  const uint64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
  const std::string T = c_type(o.dtype);
  const uint64_t bytes = M * N * dtype_size(o.dtype);
  const std::string field = env.scratch(bytes);
  const std::string m = u(M), kk = u(K), nn = u(N);
  c << "  " << T << "* restrict acc = (" << T << "*)s->" << field << ";\n"
    << "  memset(acc, 0, " << bytes << "u);\n"
    << "  for (size_t i0 = 0; i0 < " << m << "; i0 += 32u)\n"
    << "    for (size_t k0 = 0; k0 < " << kk << "; k0 += 128u)\n"
    << "      for (size_t j0 = 0; j0 < " << nn << "; j0 += 512u) {\n"
    << "        const size_t i1 = i0 + 32u < " << m << " ? i0 + 32u : " << m << ";\n"
    << "        const size_t k1 = k0 + 128u < " << kk << " ? k0 + 128u : " << kk << ";\n"
    << "        const size_t j1 = j0 + 512u < " << nn << " ? j0 + 512u : " << nn << ";\n"
    << "        for (size_t r = i0; r < i1; ++r)\n"
    << "          for (size_t d = k0; d < k1; ++d) {\n"
    << "            const " << T << " av = p_" << an << "[r * " << kk << " + d];\n"
    << "            " << T << "* restrict crow = acc + r * " << nn << ";\n"
    << "            const " << T << "* brow = p_" << bn << " + d * " << nn << ";\n"
    << "            for (size_t j = j0; j < j1; ++j) crow[j] += av * brow[j];\n"
    << "          }\n"
    << "      }\n";
  value = "acc[i]";
  return out;
}

}  // namespace

void register_matmul_ops(OpTable& t) {
  t.heads["matmul"] = matmul;
}

}  // namespace oi::c_emitter
