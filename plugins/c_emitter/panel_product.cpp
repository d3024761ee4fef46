// Panel products of generated C (panel_product.hpp).
#include "panel_product.hpp"

#include <algorithm>

#include "matmul_simd.hpp"

namespace oi::c_emitter {
namespace {

// One instruction set's register tile, spelled for the generated C.
struct Tile {
  const char* name;    // the function's suffix
  const char* target;  // its target attribute
  const char* vec;     // vector type
  const char* pfx;     // intrinsics' prefix
  uint64_t lanes;      // f32 lanes per vector
  uint64_t mb, nb;     // vectors of rows per block, columns of X per tile
};

// Accumulators: AVX-512 has 32 registers, AVX2 16. The tile keeps mb x nb accumulators and
// mb weight vectors (or folds them into the multiply-adds) with the broadcast columns of X.
Tile avx512_tile(uint64_t R, uint64_t C) {
  const uint64_t nb = C <= 8 ? C : (C + (C + 7) / 8 - 1) / ((C + 7) / 8);
  const uint64_t mb = std::clamp<uint64_t>(24 / nb, 1, 8);
  return {"avx512", "avx512f", "__m512", "_mm512", 16, std::min(mb, (R + 15) / 16), nb};
}
Tile avx2_tile(uint64_t R, uint64_t C) {
  const uint64_t nb = C <= 4 ? C : (C + (C + 3) / 4 - 1) / ((C + 3) / 4);
  const uint64_t mb = std::clamp<uint64_t>(12 / nb, 1, 8);
  return {"avx2", "avx2,fma", "__m256", "_mm256", 8, std::min(mb, (R + 7) / 8), nb};
}

uint64_t round_up(uint64_t v, uint64_t m) {
  return (v + m - 1) / m * m;
}

// One register tile: rows [r0, r0 + mb * lanes) of the block at wb ([K][rows] with `rows`
// floats per depth step) times columns [c0, c0 + nb) of X; `valid` rows of the tile exist.
void tile_body(std::ostringstream& c, const PanelProduct& p, const Tile& t, uint64_t mb,
               uint64_t nb, uint64_t rows, const std::string& r0, const std::string& c0,
               uint64_t valid, const std::string& in, bool blocked) {
  const std::string v = t.vec, f = t.pfx;
  auto acc = [](uint64_t i, uint64_t j) {
    std::string name = "a";  // appended (GCC 12's -O3 -Wrestrict misfires on "a" + string)
    name += std::to_string(i);
    name += '_';
    name += std::to_string(j);
    return name;
  };
  // Blocked over K: the partial sums of the tile wait in `part` ([column][row]) between the
  // depth blocks k0 .. k1; the first block starts from zero, the last stores to y.
  auto at_part = [&](uint64_t i, uint64_t j) {
    return "part + (" + c0 + " + " + u(j) + ") * " + u(rows) + " + " + u(i * t.lanes);
  };
  c << in << "{\n";
  for (uint64_t i = 0; i < mb; ++i) {
    c << in << "  " << v;
    for (uint64_t j = 0; j < nb; ++j)
      c << (j ? ", " : " ") << acc(i, j) << " = "
        << (blocked ? "first ? " + f + "_setzero_ps() : " + f + "_loadu_ps(" + at_part(i, j) + ")"
                    : f + "_setzero_ps()");
    c << ";\n";
  }
  c << in << "  const float* restrict xc = x + " << c0 << " * " << u(p.x_cs) << ";\n"
    << in << "  for (size_t k = " << (blocked ? "k0" : "0") << "; k < " << (blocked ? "k1" : u(p.K))
    << "; ++k) {\n"
    << in << "    const float* restrict wk = wb + k * " << u(rows) << ";\n";
  for (uint64_t i = 0; i < mb; ++i)
    c << in << "    const " << v << " w" << i << " = " << f << "_loadu_ps(wk + " << i * t.lanes
      << ");\n";
  for (uint64_t j = 0; j < nb; ++j) {
    c << in << "    {\n"
      << in << "      const " << v << " xv = " << f << "_set1_ps(xc[" << u(j * p.x_cs) << " + k * "
      << u(p.x_ks) << "]);\n";
    for (uint64_t i = 0; i < mb; ++i)
      c << in << "      " << acc(i, j) << " = " << f << "_fmadd_ps(w" << i << ", xv, " << acc(i, j)
        << ");\n";
    c << in << "    }\n";
  }
  c << in << "  }\n";
  if (blocked) {
    c << in << "  if (!last) {\n";
    for (uint64_t i = 0; i < mb; ++i)
      for (uint64_t j = 0; j < nb; ++j)
        c << in << "    " << f << "_storeu_ps(" << at_part(i, j) << ", " << acc(i, j) << ");\n";
    c << in << "  } else {\n";
  }
  for (uint64_t i = 0; i < mb; ++i) {
    const uint64_t lanes = std::min(t.lanes, valid > i * t.lanes ? valid - i * t.lanes : 0);
    if (lanes == 0) continue;
    const std::string row = "(" + r0 + " + " + u(i * t.lanes) + ")";
    for (uint64_t j = 0; j < nb; ++j) {
      const std::string col = "(" + c0 + " + " + u(j) + ") * " + u(p.y_cs);
      if (p.y_rs == 1 && lanes == t.lanes) {
        c << in << "  " << f << "_storeu_ps(y + " << row << " + " << col << ", "
          << (p.bias ? f + "_add_ps(" + acc(i, j) + ", " + f + "_loadu_ps(bias + " + row + "))"
                     : acc(i, j))
          << ");\n";
      } else {
        c << in << "  {\n"
          << in << "    float t[" << t.lanes << "];\n"
          << in << "    " << f << "_storeu_ps(t, " << acc(i, j) << ");\n"
          << in << "    for (size_t l = 0; l < " << u(lanes) << "; ++l) y[(" << row << " + l) * "
          << u(p.y_rs) << " + " << col << "] = t[l]" << (p.bias ? " + bias[" + row + " + l]" : "")
          << ";\n"
          << in << "  }\n";
      }
    }
  }
  if (blocked) c << in << "  }\n";
  c << in << "}\n";
}

// The product for one instruction set: full blocks of mb * lanes rows, then the last rows
// (rounded up to lanes in the packing); per block, tiles of nb columns, then the rest.
std::string simd_function(const PanelProduct& p, const Tile& t, const std::string& name,
                          uint64_t l2_bytes) {
  std::ostringstream c;
  const uint64_t rb = t.mb * t.lanes, full = p.R / rb, rest = p.R - full * rb;
  const uint64_t cf = p.C / t.nb * t.nb, cr = p.C - cf;
  // Depth blocks: a block's weights (kc x rb) and columns of X (kc x C) together within half of
  // L2, so the weights are read from L2, not L3, by every tile of columns after the first.
  uint64_t kc = std::max<uint64_t>(l2_bytes / 2 / (4 * (rb + p.C)), 64) / 8 * 8;
  const bool blocked = kc < p.K && p.C > t.nb;
  if (blocked) kc = (p.K + (p.K + kc - 1) / kc - 1) / ((p.K + kc - 1) / kc);  // balanced
  c << "static OI_HELPER __attribute__((target(\"" << t.target << "\"))) void " << name
    << "(\n    const float* restrict wp, const float* restrict x, float* restrict y,\n"
       "    const float* restrict bias) {\n  (void)bias;\n";
  if (blocked) c << "  float part[" << p.C * rb << "];\n";
  auto columns = [&](uint64_t mb, uint64_t rows, const std::string& r0, uint64_t valid,
                     const std::string& in) {
    std::string ind = in;
    if (blocked) {
      c << in << "for (size_t k0 = 0; k0 < " << u(p.K) << "; k0 += " << u(kc) << ") {\n"
        << in << "  const size_t k1 = k0 + " << u(kc) << " < " << u(p.K) << " ? k0 + " << u(kc)
        << " : " << u(p.K) << ";\n"
        << in << "  const int first = k0 == 0, last = k1 == " << u(p.K) << ";\n";
      ind = in + "  ";
    }
    if (cf > 0) {
      c << ind << "for (size_t c0 = 0; c0 < " << u(cf) << "; c0 += " << u(t.nb) << ")\n";
      tile_body(c, p, t, mb, t.nb, rows, r0, "c0", valid, ind + "  ", blocked);
    }
    if (cr > 0) tile_body(c, p, t, mb, cr, rows, r0, u(cf), valid, ind, blocked);
    if (blocked) c << in << "}\n";
  };
  if (full > 0) {
    c << "  for (size_t b = 0; b < " << u(full) << "; ++b) {\n"
      << "    const float* restrict wb = wp + b * " << u(p.K * rb) << ";\n"
      << "    const size_t r0 = b * " << u(rb) << ";\n";
    columns(t.mb, rb, "r0", rb, "    ");
    c << "  }\n";
  }
  if (rest > 0) {
    const uint64_t mb = (rest + t.lanes - 1) / t.lanes;
    c << "  {\n    const float* restrict wb = wp + " << u(full * p.K * rb) << ";\n";
    columns(mb, mb * t.lanes, u(full * rb), rest, "    ");
    c << "  }\n";
  }
  c << "}\n\n";
  return c.str();
}

// The portable loops over the layout of 16-row blocks: per block, columns in fours, 16 sums
// per column in an array the compiler may keep in vector registers.
std::string portable_function(const PanelProduct& p, const std::string& name) {
  std::ostringstream c;
  const uint64_t blocks = (p.R + 15) / 16;
  c << "OI_KERNEL static OI_HELPER void " << name
    << "(\n    const float* restrict wp, const float* restrict x, float* restrict y,\n"
       "    const float* restrict bias) {\n  (void)bias;\n"
    << "  for (size_t b = 0; b < " << u(blocks) << "; ++b) {\n"
    << "    const float* restrict wb = wp + b * " << u(p.K * 16) << ";\n"
    << "    const size_t r0 = b * 16u, rows = " << u(p.R) << " - r0 < 16u ? " << u(p.R)
    << " - r0 : 16u;\n"
    << "    for (size_t c0 = 0; c0 < " << u(p.C) << "; c0 += 4u) {\n"
    << "      const size_t nc = " << u(p.C) << " - c0 < 4u ? " << u(p.C) << " - c0 : 4u;\n"
    << "      float acc[4][16];\n"
    << "      for (size_t j = 0; j < 4u; ++j)\n"
    << "        for (size_t l = 0; l < 16u; ++l) acc[j][l] = 0.0f;\n"
    << "      for (size_t k = 0; k < " << u(p.K) << "; ++k) {\n"
    << "        const float* restrict wk = wb + k * 16u;\n"
    << "        for (size_t j = 0; j < nc; ++j) {\n"
    << "          const float xv = x[(c0 + j) * " << u(p.x_cs) << " + k * " << u(p.x_ks) << "];\n"
    << "          for (size_t l = 0; l < 16u; ++l) acc[j][l] += wk[l] * xv;\n"
    << "        }\n      }\n"
    << "      for (size_t j = 0; j < nc; ++j)\n"
    << "        for (size_t l = 0; l < rows; ++l)\n"
    << "          y[(r0 + l) * " << u(p.y_rs) << " + (c0 + j) * " << u(p.y_cs) << "] = acc[j][l]"
    << (p.bias ? " + bias[r0 + l]" : "") << ";\n"
    << "    }\n  }\n}\n\n";
  return c.str();
}

}  // namespace

const char* const kPanelHelpersC =
    R"C(/* Panel products (constant weights times a few columns): the rows of w (element (r, k)
 * at w[r * rs + k * ks], R rows, K deep) in blocks of rb rows, each block K steps of its rows
 * (the last block's rows rounded up to `lanes`, zeros past R), from wp on. */
static OI_HELPER void oi_pp_pack(const float* w, size_t rs, size_t ks, size_t R, size_t K,
                                 size_t rb, size_t lanes, float* restrict wp) {
  for (size_t r0 = 0; r0 < R; r0 += rb) {
    const size_t rows = R - r0 < rb ? (R - r0 + lanes - 1) / lanes * lanes : rb;
    for (size_t k = 0; k < K; ++k)
      for (size_t i = 0; i < rows; ++i) *wp++ = r0 + i < R ? w[(r0 + i) * rs + k * ks] : 0.0f;
  }
}

/* The first 64-byte boundary of a buffer allocated 64 bytes longer than it is used. */
static OI_HELPER float* oi_pp_align(void* p) {
  return (float*)(((uintptr_t)p + 63u) & ~(uintptr_t)63u);
}

)C";

bool panel_product_applies(uint64_t R, uint64_t C, uint64_t K) {
  return R >= 8 && C >= 1 && C <= 16 && K >= 1;
}

PanelPlan emit_panel_functions(KernelEnv& env, const PanelProduct& p) {
  PanelPlan plan;
  plan.p = p;
  const MatmulDevice d = matmul_device(env.device());
  plan.allowed = (d.avx2 ? 1 : 0) | (d.avx512 ? 2 : 0);
  plan.copy_floats = p.K * round_up(p.R, 16);
  plan.buffer = env.scratch(plan.copy_floats * p.copies * p.entries * 4 + 64);
  plan.flag = env.state_flag();
  plan.fn = "pp_" + plan.buffer;
  std::string text = portable_function(p, plan.fn + "_portable");
  if (plan.allowed) {
    text += "#ifdef OI_MM_X86\n";
    if (d.avx512) text += simd_function(p, avx512_tile(p.R, p.C), plan.fn + "_avx512", d.l2_bytes);
    if (d.avx2) text += simd_function(p, avx2_tile(p.R, p.C), plan.fn + "_avx2", d.l2_bytes);
    text += "#endif\n\n";
  }
  env.function(text);
  return plan;
}

void emit_panel_setup(std::ostringstream& c, const PanelPlan& plan, const std::string& in) {
  const PanelProduct& p = plan.p;
  const Tile t5 = avx512_tile(p.R, p.C), t2 = avx2_tile(p.R, p.C);
  c << in << "float* const pp_w = oi_pp_align(s->" << plan.buffer << ") + " << p.entry << " * "
    << u(plan.copy_floats * p.copies) << ";\n"
    << in << "int pp_isa = 0;\n";
  if (plan.allowed)
    c << "#ifdef OI_MM_X86\n" << in << "pp_isa = oi_mm_isa(" << plan.allowed << ");\n#endif\n";
  c << in << "(void)pp_isa;\n"
    << in << "if (!(s->" << plan.flag << " & (1 << " << p.entry << "))) {\n"
    << in << "  const size_t rb = pp_isa == 2 ? " << u(t5.mb * 16) << " : pp_isa == 1 ? "
    << u(t2.mb * 8) << " : 16u, lanes = pp_isa == 1 ? 8u : 16u;\n"
    << in << "  for (size_t j = 0; j < " << u(p.copies) << "; ++j)\n"
    << in << "    oi_pp_pack(" << p.w << " + j * " << u(p.w_copy) << ", " << u(p.w_rs) << ", "
    << u(p.w_ks) << ", " << u(p.R) << ", " << u(p.K) << ", rb, lanes, pp_w + j * "
    << u(plan.copy_floats) << ");\n"
    << in << "  s->" << plan.flag << " |= 1 << " << p.entry << ";\n"
    << in << "}\n";
}

void emit_panel_call(std::ostringstream& c, const PanelPlan& plan, const std::string& copy,
                     const std::string& x, const std::string& y, const std::string& bias,
                     const std::string& in) {
  const std::string args = "(pp_w + " + copy + " * " + u(plan.copy_floats) + ", " + x + ", " + y +
                           ", " + (bias.empty() ? "NULL" : bias) + ");\n";
  if (plan.allowed) {
    c << "#ifdef OI_MM_X86\n" << in;
    if (plan.allowed & 2) c << "if (pp_isa == 2) " << plan.fn << "_avx512" << args << in << "else ";
    if (plan.allowed & 1) c << "if (pp_isa == 1) " << plan.fn << "_avx2" << args << in << "else ";
    c << "\n#endif\n";
  }
  c << in << "  " << plan.fn << "_portable" << args;
}

}  // namespace oi::c_emitter
