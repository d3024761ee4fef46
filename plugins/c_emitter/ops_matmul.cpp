// matmul [M, K] x [K, N] in generated C (f32, f64), the head of a kernel whose elementwise
// epilogue follows. Accumulated into a per-kernel scratch buffer (the output may be an input,
// or live in registers) by register blocks of 4 rows x 4 steps of depth over column blocks of
// 512, the innermost loop contiguous over the columns; each element sums in k order in its
// dtype (ops.md: f32 for f32, f64 for f64).
#include "c_ops.hpp"

namespace oi::c_emitter {
namespace {

// The register block: 4 rows of the output take 4 steps of depth per pass over a column
// block of 512, so each pass loads an output element once for 4 multiply-adds per row, and the
// loop over the columns (straight-line code per column) vectorizes at -O2 with OI_KERNEL.
constexpr uint64_t kRows = 4, kDepth = 4, kColumns = 512;


// Rows i0 .. i0+R-1 of acc += A[rows, k .. k+U-1] x B[k .. k+U-1, j0 .. j1-1], each output
// element taking its U products in k order.
void block(std::ostringstream& c, const ProductNames& n, uint64_t R, uint64_t U,
           const std::string& indent) {
  c << indent << "{\n";
  for (uint64_t r = 0; r < R; ++r) {
    c << indent << "  " << n.T << "* restrict c" << r << " = acc + (i0 + " << r << "u) * " << u(n.N)
      << ";\n";
    for (uint64_t k = 0; k < U; ++k)
      c << indent << "  const " << n.T << " a" << r << "_" << k << " = " << n.a << "[(i0 + " << r
        << "u) * " << u(n.K) << " + k + " << k << "u];\n";
  }
  for (uint64_t k = 0; k < U; ++k)
    c << indent << "  const " << n.T << "* restrict b" << k << " = " << n.b << " + (k + " << k
      << "u) * " << u(n.N) << ";\n";
  c << indent << "  for (size_t j = j0; j < j1; ++j) {\n";
  for (uint64_t k = 0; k < U; ++k)
    c << indent << "    const " << n.T << " v" << k << " = b" << k << "[j];\n";
  for (uint64_t r = 0; r < R; ++r) {
    std::string e = "c" + std::to_string(r) + "[j]";
    for (uint64_t k = 0; k < U; ++k)
      e = "(" + e + " + a" + std::to_string(r) + "_" + std::to_string(k) + " * v" +
          std::to_string(k) + ")";
    c << indent << "    c" << r << "[j] = " << e << ";\n";
  }
  c << indent << "  }\n" << indent << "}\n";
}

// acc[M, n.N] += A[M, n.K] x B[n.K, n.N]: whole blocks of rows, then the last rows; in each,
// whole steps of depth, then the rest; all over column blocks.
}  // namespace

void emit_product(std::ostringstream& c, const ProductNames& names, uint64_t M) {
  const uint64_t K = names.K, N = names.N;
  const uint64_t M4 = M / kRows * kRows, K4 = K / kDepth * kDepth;
  c << "  for (size_t j0 = 0; j0 < " << u(N) << "; j0 += " << u(kColumns) << ") {\n"
    << "    const size_t j1 = j0 + " << u(kColumns) << " < " << u(N) << " ? j0 + " << u(kColumns)
    << " : " << u(N) << ";\n";
  auto rows = [&](uint64_t R, const std::string& indent) {
    if (K4 > 0) {
      c << indent << "for (size_t k = 0; k < " << u(K4) << "; k += " << u(kDepth) << ")\n";
      block(c, names, R, kDepth, indent + "  ");
    }
    if (K > K4) {
      c << indent << "{\n" << indent << "  const size_t k = " << u(K4) << ";\n";
      block(c, names, R, K - K4, indent + "  ");
      c << indent << "}\n";
    }
  };
  if (M4 > 0) {
    c << "    for (size_t i0 = 0; i0 < " << u(M4) << "; i0 += " << u(kRows) << ") {\n";
    rows(kRows, "      ");
    c << "    }\n";
  }
  if (M > M4) {
    c << "    {\n      const size_t i0 = " << u(M4) << ";\n";
    rows(M - M4, "      ");
    c << "    }\n";
  }
  c << "  }\n";
}

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
  c << "  " << T << "* restrict acc = (" << T << "*)s->" << field << ";\n"
    << "  memset(acc, 0, " << bytes << "u);\n";
  if (M == 0 || N == 0 || K == 0) {
    value = "acc[i]";
    return out;
  }
  if (N == 1 && M >= 8 && a.storage == "constant") {
    // A matrix-vector product with constant weights (an LSTM's gates): A packed transposed
    // once, the product computed as x^T A^T so the vectorized loop runs over A's M rows.
    const std::string at = env.scratch(M * K * dtype_size(o.dtype)), flag = env.state_flag();
    c << "  " << T << "* restrict at = (" << T << "*)s->" << at << ";\n"
      << "  if (!s->" << flag << ") {\n"
      << "    for (size_t r = 0; r < " << u(M) << "; ++r)\n"
      << "      for (size_t d = 0; d < " << u(K) << "; ++d) at[d * " << u(M) << " + r] = p_" << an
      << "[r * " << u(K) << " + d];\n"
      << "    s->" << flag << " = 1;\n  }\n";
    emit_product(c, {"p_" + bn, "at", T, K, M}, 1);
  } else {
    emit_product(c, {"p_" + an, "p_" + bn, T, K, N}, M);
  }
  value = "acc[i]";
  return out;
}

}  // namespace

void register_matmul_ops(OpTable& t) {
  t.heads["matmul"] = matmul;
}

}  // namespace oi::c_emitter
