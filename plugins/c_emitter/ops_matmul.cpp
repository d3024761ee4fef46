// matmul [M, K] x [K, N] in generated C (f32, f64), the head of a kernel whose elementwise
// epilogue follows. Accumulated into a per-kernel scratch buffer (the output may be an input,
// or live in registers). f32 products of 4 rows and columns or more run, on x86-64 with GCC or
// Clang, the packed SIMD kernels of matmul_simd.cpp (AVX2+FMA or AVX-512F: those the plan's
// device allows, picked at run time); elsewhere, and for f64, the portable register blocks
// here (also where the device allows no kernel): 4 rows x 4 steps of depth over
// column blocks of 512, the innermost loop contiguous over the columns, each element summing in
// k order in its dtype (ops.md: f32 for f32, f64 for f64).
#include <algorithm>
#include <stdexcept>

#include "c_ops.hpp"
#include "matmul_simd.hpp"
#include "ops_mcu.hpp"
#include "panel_product.hpp"

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
void portable_product(std::ostringstream& c, const ProductNames& names, uint64_t M) {
  const uint64_t K = names.K, N = names.N;
  // One row (a matrix-vector product): 8 steps of depth per pass, halving the passes over the
  // output row that each step of depth costs.
  const uint64_t depth = M == 1 ? 2 * kDepth : kDepth;
  const uint64_t M4 = M / kRows * kRows, K4 = K / depth * depth;
  // A product of a few rows (a decoder's token times its weights): whole rows of B per pass,
  // so B, read once, streams from memory in order; the rows of the output (at most 4 x N
  // values) stay in cache meanwhile.
  const uint64_t cols = M <= kRows ? std::max<uint64_t>(N, 1) : kColumns;
  c << "  for (size_t j0 = 0; j0 < " << u(N) << "; j0 += " << u(cols) << ") {\n"
    << "    const size_t j1 = j0 + " << u(cols) << " < " << u(N) << " ? j0 + " << u(cols) << " : "
    << u(N) << ";\n";
  auto rows = [&](uint64_t R, const std::string& indent) {
    if (K4 > 0) {
      c << indent << "for (size_t k = 0; k < " << u(K4) << "; k += " << u(depth) << ")\n";
      block(c, names, R, depth, indent + "  ");
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

// The micro-kernels and cache blocking the plan's device allows (its `cpu` and `memory`).
MatmulDevice plan_device(const KernelEnv& env) {
  return matmul_device(env.device());
}

}  // namespace

// f32 through the SIMD kernels with buffers of their own where they apply (conv's patch tiles),
// else the portable register blocks.
void emit_product(std::ostringstream& c, const ProductNames& names, uint64_t M,
                  const MatmulDevice& d) {
  const SimdProduct simd{names.a, names.b, M, names.K, names.N, false};
  if (names.T == "float" && simd_product_applies(simd, d))
    emit_simd_product_unpacked(c, simd, d, [&] { portable_product(c, names, M); });
  else
    portable_product(c, names, M);
}

// Without a device: every micro-kernel the generated file holds, the default blocking.
void emit_product(std::ostringstream& c, const ProductNames& names, uint64_t M) {
  emit_product(c, names, M, matmul_device(nullptr));
}

namespace {

uint64_t product(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

std::string matmul(KernelEnv& env, const json::object& k, std::ostringstream& c,
                   std::string& value) {
  const auto& head = k.at("ops").as_array().at(0).as_object();
  const std::string where = "matmul (line " + json::serialize(head.at("line")) + ")";
  if (!head.at("settings").as_object().empty())
    throw LibraryInstead("c emitter: " + where + " with settings: left to the C kernel library");
  std::vector<uint64_t> shape;
  for (const auto& d : k.at("shape").as_array()) shape.push_back(d.to_number<uint64_t>());
  const auto& ins = head.at("inputs").as_array();
  const std::string an = str(ins.at(0)), bn = str(ins.at(1)), out = str(head.at("output"));
  if (an.find('[') != std::string::npos || bn.find('[') != std::string::npos)
    throw LibraryInstead("c emitter: " + where + " on a table entry: left to the C kernel library");
  const Value &a = env.value(an), &b = env.value(bn), &o = env.value(out);
  const size_t ra = a.shape.size(), rb = b.shape.size(), r = shape.size();
  if (ra < 2 || rb < 2 || r != std::max(ra, rb))
    invalid_plan(where + ": operands of rank " + std::to_string(ra) + " and " + std::to_string(rb) +
                 " for a kernel of rank " + std::to_string(r));
  if ((o.dtype != "f32" && o.dtype != "f64") || a.dtype != o.dtype || b.dtype != o.dtype)
    throw LibraryInstead("c emitter: " + where + " on " + a.dtype +
                         ": left to the C kernel library");
  const uint64_t M = a.shape[ra - 2], K = a.shape[ra - 1], N = b.shape[rb - 1];
  // Batch dims (ops.md: numpy broadcasting): the output's, and each operand's.
  const std::vector<uint64_t> ob(shape.begin(), shape.end() - 2),
      ab(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
  const uint64_t batches = product(ob), a_batches = product(ab), b_batches = product(bb);
  // One B for all batches and A whole in every one: the batches are rows of one product.
  const bool fold = b_batches == 1 && a_batches == batches;
  const uint64_t rows = fold ? batches * M : M, loops = fold ? 1 : batches;
  const std::string T = c_type(o.dtype);
  const uint64_t bytes = rows * N * dtype_size(o.dtype);
  const std::string field = env.scratch(batches * M * N * dtype_size(o.dtype));
  c << "  " << T << "* restrict mm_out = (" << T << "*)s->" << field << ";\n";
  value = "mm_out[i]";
  if (batches * M * N == 0) return out;
  if (K == 0) {
    c << "  memset(mm_out, 0, " << u(batches * M * N * dtype_size(o.dtype)) << ");\n";
    return out;
  }
  // Per batch (i), the operands' first elements and the output block `acc`.
  const std::string pa = loops == 1 ? "p_" + an : "(p_" + an + " + mm_a)",
                    pb = loops == 1 ? "p_" + bn : "(p_" + bn + " + mm_b)";
  const std::string zero = "    memset(acc, 0, " + u(bytes) + ");\n";
  // f32 with a constant A of one batch and few columns (an LSTM's gates, W x): A packed once
  // into row blocks, panel_product.hpp's register tiles over the columns of B.
  // Not freestanding: the packed copy of A would live in RAM (ops_mcu.cpp reads A in flash).
  if (o.dtype == "f32" && a.storage == "constant" && a_batches == 1 &&
      !emit_profile().freestanding && panel_product_applies(M, N, K)) {
    PanelProduct p;
    p.R = M;
    p.C = N;
    p.K = K;
    p.w = "p_" + an;
    p.w_rs = K;
    p.w_ks = 1;
    p.x_cs = 1;
    p.x_ks = N;
    p.y_rs = N;
    p.y_cs = 1;
    const PanelPlan plan = emit_panel_functions(env, p);
    emit_panel_setup(c, plan, "  ");
    if (batches == 1) {
      emit_panel_call(c, plan, "0", "p_" + bn, "mm_out", "", "  ");
    } else {
      c << "  for (size_t i = 0; i < " << u(batches) << "; ++i) {\n"
        << "    const size_t mm_b = " << index_expr(bb, ob) << " * " << u(K * N) << ";\n";
      emit_panel_call(c, plan, "0", "p_" + bn + " + mm_b", "mm_out + i * " + u(M * N), "", "    ");
      c << "  }\n";
    }
    return out;
  }
  const MatmulDevice device = plan_device(env);
  const SimdProduct simd{pa, pb, rows, K, N, b.storage == "constant" && b_batches == 1};
  const bool use_simd = o.dtype == "f32" && simd_product_applies(simd, device);
  // A matrix-vector product with constant weights (an LSTM's gates): A packed transposed once,
  // the product computed as x^T A^T so the vectorized loop runs over A's M rows.
  const bool gemv = !use_simd && N == 1 && M >= 8 && a.storage == "constant" && a_batches == 1 &&
                    !emit_profile().freestanding;
  if (gemv) {
    const std::string at = env.scratch(M * K * dtype_size(o.dtype)), flag = env.state_flag();
    c << "  " << T << "* restrict at = (" << T << "*)s->" << at << ";\n"
      << "  if (!s->" << flag << ") {\n"
      << "    for (size_t r = 0; r < " << u(M) << "; ++r)\n"
      << "      for (size_t d = 0; d < " << u(K) << "; ++d) at[d * " << u(M) << " + r] = p_" << an
      << "[r * " << u(K) << " + d];\n"
      << "    s->" << flag << " = 1;\n  }\n";
  }
  if (loops == 1)
    c << "  {\n    " << T << "* restrict acc = mm_out;\n";
  else
    c << "  for (size_t i = 0; i < " << u(loops) << "; ++i) {\n"
      << "    " << T << "* restrict acc = mm_out + i * " << u(rows * N) << ";\n"
      << "    const size_t mm_a = " << index_expr(ab, ob) << " * " << u(M * K)
      << ", mm_b = " << index_expr(bb, ob) << " * " << u(K * N) << ";\n    (void)mm_a;\n";
  if (use_simd) {
    emit_simd_product(env, c, simd, device, [&] {
      c << zero;
      portable_product(c, {pa, pb, T, K, N}, rows);
    });
  } else if (emit_profile().freestanding) {
    mcu_product(c, {pa, pb, T, K, N}, rows);  // register blocks, A and B in place (ops_mcu.cpp)
  } else {
    c << zero;
    if (gemv)
      portable_product(c, {pb, "at", T, K, M}, 1);
    else
      portable_product(c, {pa, pb, T, K, N}, rows);
  }
  c << "  }\n";
  return out;
}

}  // namespace

void register_matmul_ops(OpTable& t) {
  t.heads["matmul"] = matmul;  // its support code depends on the device: c_generator.cpp writes it
}

}  // namespace oi::c_emitter
