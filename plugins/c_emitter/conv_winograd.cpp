// Winograd F(2x2, 3x3) convolutions of generated C (conv_winograd.hpp).
//
// Per image: x copied into a zero-bordered plane per channel (the borders are written once per
// state), then blocks of output tiles (t = tile row * tiles per row + tile column, Tb tiles a
// block so a block's V and M stay in L2): V[16][C][Tb] from the plane, M[16][M][Tb] = U V (the
// 16 products, register tiles of U's rows (broadcast) times vectors of 16 tiles), and the
// output tiles from M. U [16][row blocks][C][rows] is G g G^T packed once per state.
#include "conv_winograd.hpp"

#include <algorithm>

#include "matmul_simd.hpp"

namespace oi::c_emitter {
namespace {

uint64_t round_up(uint64_t v, uint64_t m) {
  return (v + m - 1) / m * m;
}

struct Shape {
  uint64_t C, M, H, W, OH, OW, TH, TW, T, Hp, Wp, Tb, mr, nv;
  uint64_t vs, ms;  // floats between V's and M's 16 planes
  bool prefetch;    // U is larger than L2
  int64_t pt, pl;
};

Shape shape_of(const Window& g, uint64_t M, uint64_t l2_bytes) {
  Shape s{};
  s.C = g.channels;
  s.M = M;
  s.H = g.in_h;
  s.W = g.in_w;
  s.OH = g.out_h;
  s.OW = g.out_w;
  s.TH = (s.OH + 1) / 2;
  s.TW = (s.OW + 1) / 2;
  s.T = s.TH * s.TW;
  s.pt = g.pad_top;
  s.pl = g.pad_left;
  // The plane holds rows 0 .. 2 TH + 1; a vector of 16 tiles from column 2 tw reads 34 columns.
  s.Hp = std::max<uint64_t>(2 * s.TH + 2, s.H + static_cast<uint64_t>(s.pt));
  s.Wp = round_up(std::max<uint64_t>(2 * s.TW + 32, s.W + static_cast<uint64_t>(s.pl)), 16);
  // Tiles per block: V and M of a block within half of L2, at least 64 (fewer blocks re-read
  // U less), a multiple of 16.
  const uint64_t per_tile = 16 * (s.C + s.M) * 4;
  const uint64_t fit = std::max<uint64_t>(l2_bytes / 2 / per_tile / 16 * 16, 64);
  s.Tb = std::min(fit, round_up(s.T, 16));
  // Register tile: mr rows of U times nv vectors of tiles, 24 accumulators.
  // A block's vectors in groups of nv with no remainder where possible.
  const uint64_t vecs = s.Tb / 16;
  s.nv = vecs % 3 == 0 ? 3 : vecs % 2 == 0 ? 2 : std::min<uint64_t>(vecs, 3);
  s.mr = 24 / s.nv;
  // A cache line more than the planes, so the 16 streams of a transform fall in different L1
  // sets (plane sizes are multiples of 4 KiB).
  s.vs = s.C * s.Tb + 16;
  s.ms = s.M * s.Tb + 16;
  s.prefetch = 16 * s.M * s.C * 4 > l2_bytes;
  return s;
}

// acc(i, j) += U[row i] * V[vector j] over the C channels, then stored to M.
void gemm_tile(std::ostringstream& c, const Shape& s, uint64_t mr, uint64_t nv,
               const std::string& in) {
  c << in << "{\n";
  for (uint64_t i = 0; i < mr; ++i)
    for (uint64_t j = 0; j < nv; ++j)
      c << in << "  __m512 a" << i << "_" << j << " = _mm512_setzero_ps();\n";
  c << in << "  for (size_t ci = 0; ci < " << u(s.C) << "; ++ci) {\n"
    << in << "    const float* restrict vp = vx + ci * " << u(s.Tb) << " + v0 * 16u;\n"
    << in << "    const float* restrict up = ub + ci * " << u(mr) << ";\n";
  // U from memory (larger than L2: ResNet's last stages): fetched 4 KiB ahead of its use, each
  // of the (up to two) cache lines a step reads.
  if (s.prefetch)
    for (uint64_t b = 0; b < mr * 4; b += 64)
      c << in << "    _mm_prefetch((const char*)up + " << u(4096 + b) << ", _MM_HINT_T0);\n";
  for (uint64_t j = 0; j < nv; ++j)
    c << in << "    const __m512 v" << j << " = _mm512_loadu_ps(vp + " << u(j * 16) << ");\n";
  for (uint64_t i = 0; i < mr; ++i) {
    c << in << "    {\n" << in << "      const __m512 w = _mm512_set1_ps(up[" << i << "]);\n";
    for (uint64_t j = 0; j < nv; ++j)
      c << in << "      a" << i << "_" << j << " = _mm512_fmadd_ps(w, v" << j << ", a" << i << "_"
        << j << ");\n";
    c << in << "    }\n";
  }
  c << in << "  }\n";
  for (uint64_t i = 0; i < mr; ++i)
    for (uint64_t j = 0; j < nv; ++j)
      c << in << "  _mm512_storeu_ps(mx + (m0 + " << i << "u) * " << u(s.Tb) << " + (v0 + " << j
        << "u) * 16u, a" << i << "_" << j << ");\n";
  c << in << "}\n";
}

// The 16 products of a block: nvec vectors of tiles.
std::string gemm_function(const Shape& s, const std::string& name) {
  std::ostringstream c;
  c << "static OI_HELPER __attribute__((target(\"avx512f\"))) void " << name
    << "(const float* restrict U, const float* restrict V, float* restrict Mo, size_t nvec) {\n"
    << "  for (size_t xi = 0; xi < 16u; ++xi) {\n"
    << "    const float* restrict ux = U + xi * " << u(s.M * s.C) << ";\n"
    << "    const float* restrict vx = V + xi * " << u(s.vs) << ";\n"
    << "    float* restrict mx = Mo + xi * " << u(s.ms) << ";\n";
  auto rows = [&](uint64_t mr, const std::string& in) {
    c << in << "size_t v0 = 0;\n"
      << in << "for (; v0 + " << u(s.nv) << " <= nvec; v0 += " << u(s.nv) << ")\n";
    gemm_tile(c, s, mr, s.nv, in + "  ");
    for (uint64_t r = 1; r < s.nv; ++r) {
      c << in << "if (nvec - v0 == " << u(r) << ")\n";
      gemm_tile(c, s, mr, r, in + "  ");
    }
  };
  const uint64_t full = s.M / s.mr * s.mr;
  if (full > 0) {
    c << "    for (size_t m0 = 0; m0 < " << u(full) << "; m0 += " << u(s.mr) << ") {\n"
      << "      const float* restrict ub = ux + m0 * " << u(s.C) << ";\n";
    rows(s.mr, "      ");
    c << "    }\n";
  }
  if (s.M > full) {
    c << "    {\n      const size_t m0 = " << u(full) << ";\n"
      << "      const float* restrict ub = ux + m0 * " << u(s.C) << ";\n";
    rows(s.M - full, "      ");
    c << "    }\n";
  }
  c << "  }\n}\n\n";
  return c.str();
}

// V of the tiles [t0, t1) from the zero-bordered planes P: per channel, tile row and vector of
// up to 16 tiles, the four rows' columns 2 tw + 0..3 (even and odd lanes of two loads each),
// B^T across the columns, then across the rows.
std::string input_function(const Shape& s, const std::string& name) {
  std::ostringstream c;
  c << "static OI_HELPER __attribute__((target(\"avx512f\"))) void " << name
    << "(const float* restrict P, float* restrict V, size_t t0, size_t t1) {\n"
    << "  const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, "
       "26, 28, 30);\n"
    << "  const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, "
       "27, 29, 31);\n"
    << "  for (size_t ci = 0; ci < " << u(s.C) << "; ++ci)\n"
    << "    for (size_t th = t0 / " << u(s.TW) << "; th * " << u(s.TW) << " < t1; ++th) {\n"
    << "      const size_t a = th * " << u(s.TW) << " < t0 ? t0 - th * " << u(s.TW) << " : 0u;\n"
    << "      const size_t e = (th + 1u) * " << u(s.TW) << " > t1 ? t1 - th * " << u(s.TW) << " : "
    << u(s.TW) << ";\n"
    << "      for (size_t tw = a; tw < e; tw += 16u) {\n"
    << "        const size_t n = e - tw < 16u ? e - tw : 16u;\n"
    << "        const __mmask16 k = (__mmask16)((1u << n) - 1u);\n"
    << "        const float* restrict p = P + (ci * " << u(s.Hp) << " + 2u * th) * " << u(s.Wp)
    << " + 2u * tw;\n"
    << "        __m512 h0_0, h0_1, h0_2, h0_3, h1_0, h1_1, h1_2, h1_3, h2_0, h2_1, h2_2, h2_3, "
       "h3_0, h3_1, h3_2, h3_3;\n"
    << "        float* restrict v = V + ci * " << u(s.Tb) << " + th * " << u(s.TW)
    << " + tw - t0;\n";
  // Straight-line code (GCC keeps arrays of vectors in memory): per row r the columns' B^T
  // (h<r>_<j>), then B^T across the rows into the 16 planes.
  for (int r = 0; r < 4; ++r) {
    const std::string R = std::to_string(r);
    c << "        {\n"
      << "          const float* restrict q = p + " << u(r * s.Wp) << ";\n"
      << "          const __m512 l0 = _mm512_loadu_ps(q), l1 = _mm512_loadu_ps(q + 16);\n"
      << "          const __m512 l2 = _mm512_loadu_ps(q + 2), l3 = _mm512_loadu_ps(q + 18);\n"
      << "          const __m512 e0 = _mm512_permutex2var_ps(l0, ev, l1);\n"
      << "          const __m512 e1 = _mm512_permutex2var_ps(l0, od, l1);\n"
      << "          const __m512 e2 = _mm512_permutex2var_ps(l2, ev, l3);\n"
      << "          const __m512 e3 = _mm512_permutex2var_ps(l2, od, l3);\n"
      << "          h" << R << "_0 = _mm512_sub_ps(e0, e2);\n"
      << "          h" << R << "_1 = _mm512_add_ps(e1, e2);\n"
      << "          h" << R << "_2 = _mm512_sub_ps(e2, e1);\n"
      << "          h" << R << "_3 = _mm512_sub_ps(e1, e3);\n"
      << "        }\n";
  }
  for (int j = 0; j < 4; ++j) {
    const std::string J = std::to_string(j);
    c << "        _mm512_mask_storeu_ps(v + " << u(j * s.vs) << ", k, _mm512_sub_ps(h0_" << J
      << ", h2_" << J << "));\n"
      << "        _mm512_mask_storeu_ps(v + " << u((4 + j) * s.vs) << ", k, _mm512_add_ps(h1_" << J
      << ", h2_" << J << "));\n"
      << "        _mm512_mask_storeu_ps(v + " << u((8 + j) * s.vs) << ", k, _mm512_sub_ps(h2_" << J
      << ", h1_" << J << "));\n"
      << "        _mm512_mask_storeu_ps(v + " << u((12 + j) * s.vs) << ", k, _mm512_sub_ps(h1_" << J
      << ", h3_" << J << "));\n";
  }
  c << "      }\n"
    << "    }\n"
    << "}\n\n";
  return c.str();
}

// The output tiles [t0, t1) from M: A^T M A plus the bias, the two columns of each tile row
// interleaved into 32 output columns, stored within the plane.
std::string output_function(const Shape& s, const std::string& name, bool bias) {
  std::ostringstream c;
  c << "static OI_HELPER __attribute__((target(\"avx512f\"))) void " << name
    << "(const float* restrict Mo, float* restrict y, const float* restrict bias, size_t t0, "
       "size_t t1) {\n"
    << "  (void)bias;\n"
    << "  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, "
       "7, 23);\n"
    << "  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, "
       "30, 15, 31);\n"
    << "  for (size_t m = 0; m < " << u(s.M) << "; ++m) {\n"
    << "    const __m512 bv = " << (bias ? "_mm512_set1_ps(bias[m])" : "_mm512_setzero_ps()")
    << ";\n"
    << "    float* restrict ym = y + m * " << u(s.OH * s.OW) << ";\n"
    << "    for (size_t th = t0 / " << u(s.TW) << "; th * " << u(s.TW) << " < t1; ++th) {\n"
    << "      const size_t a = th * " << u(s.TW) << " < t0 ? t0 - th * " << u(s.TW) << " : 0u;\n"
    << "      const size_t e = (th + 1u) * " << u(s.TW) << " > t1 ? t1 - th * " << u(s.TW) << " : "
    << u(s.TW) << ";\n"
    << "      for (size_t tw = a; tw < e; tw += 16u) {\n"
    << "        const size_t n = e - tw < 16u ? e - tw : 16u;\n"
    << "        const __mmask16 k = (__mmask16)((1u << n) - 1u);\n"
    << "        const float* restrict q = Mo + m * " << u(s.Tb) << " + th * " << u(s.TW)
    << " + tw - t0;\n"
    << "        /* output columns 2 tw .. 2 tw + 2 n - 1 that lie inside the row */\n"
    << "        const size_t cols = 2u * n < " << u(s.OW) << " - 2u * tw ? 2u * n : " << u(s.OW)
    << " - 2u * tw;\n"
    << "        const __mmask16 k0 = (__mmask16)(cols >= 16u ? 0xFFFFu : (1u << cols) - 1u);\n"
    << "        const __mmask16 k1 = (__mmask16)(cols <= 16u ? 0u : (1u << (cols - 16u)) - 1u);\n";
  // Straight-line: A^T across the rows of M (r<i>_<j>), then across the columns.
  for (int j = 0; j < 4; ++j) {
    const std::string J = std::to_string(j);
    c << "        const __m512 m0_" << J << " = _mm512_maskz_loadu_ps(k, q + " << u(j * s.ms)
      << ");\n"
      << "        const __m512 m1_" << J << " = _mm512_maskz_loadu_ps(k, q + " << u((4 + j) * s.ms)
      << ");\n"
      << "        const __m512 m2_" << J << " = _mm512_maskz_loadu_ps(k, q + " << u((8 + j) * s.ms)
      << ");\n"
      << "        const __m512 m3_" << J << " = _mm512_maskz_loadu_ps(k, q + " << u((12 + j) * s.ms)
      << ");\n"
      << "        const __m512 r0_" << J << " = _mm512_add_ps(_mm512_add_ps(m0_" << J << ", m1_"
      << J << "), m2_" << J << ");\n"
      << "        const __m512 r1_" << J << " = _mm512_sub_ps(_mm512_sub_ps(m1_" << J << ", m2_"
      << J << "), m3_" << J << ");\n";
  }
  for (int i = 0; i < 2; ++i) {
    const std::string I = std::to_string(i);
    c << "        " << (i ? "if (2u * th + 1u < " + u(s.OH) + ") " : std::string()) << "{\n"
      << "          const __m512 y0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(r" << I << "_0, r"
      << I << "_1), r" << I << "_2), bv);\n"
      << "          const __m512 y1 = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(r" << I << "_1, r"
      << I << "_2), r" << I << "_3), bv);\n"
      << "          float* restrict yr = ym + (2u * th + " << I << "u) * " << u(s.OW)
      << " + 2u * tw;\n"
      << "          _mm512_mask_storeu_ps(yr, k0, _mm512_permutex2var_ps(y0, lo, y1));\n"
      << "          if (k1) _mm512_mask_storeu_ps(yr + 16, k1, _mm512_permutex2var_ps(y0, hi, "
         "y1));\n"
      << "        }\n";
  }
  c << "      }\n"
    << "    }\n"
    << "  }\n"
    << "}\n\n";
  return c.str();
}

}  // namespace

bool winograd_applies(KernelEnv& env, const Window& g, uint64_t M, uint64_t group) {
  if (!matmul_device(env.device()).avx512) return false;
  // 3x3, stride 1, no dilation, one group, pads of at most 1 (ResNet's), planes large enough
  // for whole tiles and channels enough for the register tiles.
  return g.k_h == 3 && g.k_w == 3 && g.stride_h == 1 && g.stride_w == 1 && g.dil_h == 1 &&
         g.dil_w == 1 && group == 1 && g.pad_top >= 0 && g.pad_top <= 1 && g.pad_left >= 0 &&
         g.pad_left <= 1 && g.out_h >= 4 && g.out_w >= 4 && g.in_h >= 2 && g.in_w >= 2 &&
         g.channels >= 16 && M >= 16;
}

void conv_winograd(KernelEnv& env, std::ostringstream& c, const Window& g, const Value& x,
                   const Value& w, const Value* b, uint64_t M, uint64_t entries,
                   const std::string& entry, const std::function<void()>& fallback) {
  const Shape s = shape_of(g, M, matmul_device(env.device()).l2_bytes);
  const std::string ub = env.scratch(16 * s.M * s.C * 4 * entries + 64),
                    pb = env.scratch(s.C * s.Hp * s.Wp * 4 + 64),
                    vb = env.scratch(16 * s.vs * 4 + 64), mb = env.scratch(16 * s.ms * 4 + 64);
  const std::string packed = env.state_flag(), zeroed = env.state_flag();
  const std::string fn = "wg_" + ub;
  env.function("#ifdef OI_MM_X86\n" + input_function(s, fn + "_in") +
               gemm_function(s, fn + "_gemm") + output_function(s, fn + "_out", b != nullptr) +
               "#endif\n\n");
  const uint64_t full = s.M / s.mr * s.mr;
  c << "#ifdef OI_MM_X86\n"
    << "    if (oi_mm_isa(2) == 2) {\n"
    << "      float* const wu = oi_mm_align(s->" << ub << ") + " << entry << " * "
    << u(16 * s.M * s.C) << ";\n"
    << "      float* const wp = oi_mm_align(s->" << pb << ");\n"
    << "      float* const wv = oi_mm_align(s->" << vb << ");\n"
    << "      float* const wm = oi_mm_align(s->" << mb
    << ");\n"
    // U = G g G^T per (m, c), stored at [xi][row block][c][row in block] (the last block holds
    // the rows past the full blocks).
    << "      if (!(s->" << packed << " & (1 << " << entry << "))) {\n"
    << "        for (size_t m = 0; m < " << u(s.M) << "; ++m)\n"
    << "          for (size_t ci = 0; ci < " << u(s.C) << "; ++ci) {\n"
    << "            const float* gk = p_" << w.name << " + (m * " << u(s.C) << " + ci) * 9u;\n"
    << "            float t[4][3], uu[16];\n"
    << "            for (size_t j = 0; j < 3u; ++j) {\n"
    << "              t[0][j] = gk[j];\n"
    << "              t[1][j] = (gk[j] + gk[3 + j] + gk[6 + j]) * 0.5f;\n"
    << "              t[2][j] = (gk[j] - gk[3 + j] + gk[6 + j]) * 0.5f;\n"
    << "              t[3][j] = gk[6 + j];\n"
    << "            }\n"
    << "            for (size_t i = 0; i < 4u; ++i) {\n"
    << "              uu[i * 4u] = t[i][0];\n"
    << "              uu[i * 4u + 1u] = (t[i][0] + t[i][1] + t[i][2]) * 0.5f;\n"
    << "              uu[i * 4u + 2u] = (t[i][0] - t[i][1] + t[i][2]) * 0.5f;\n"
    << "              uu[i * 4u + 3u] = t[i][2];\n"
    << "            }\n"
    << "            const size_t m0 = m / " << u(s.mr) << " * " << u(s.mr) << ", rows = m0 < "
    << u(full) << " ? " << u(s.mr) << " : " << u(s.M - full) << ";\n"
    << "            for (size_t xi = 0; xi < 16u; ++xi)\n"
    << "              wu[xi * " << u(s.M * s.C) << " + m0 * " << u(s.C)
    << " + ci * rows + (m - m0)] = uu[xi];\n"
    << "          }\n"
    << "        s->" << packed << " |= 1 << " << entry << ";\n"
    << "      }\n"
    // The planes' borders (and V's unused lanes) stay zero: only the inside is written later.
    << "      if (!s->" << zeroed << ") {\n"
    << "        memset(wp, 0, " << u(s.C * s.Hp * s.Wp * 4) << ");\n"
    << "        memset(wv, 0, " << u(16 * s.vs * 4) << ");\n"
    << "        s->" << zeroed << " = 1;\n"
    << "      }\n"
    << "      for (size_t n = 0; n < " << u(g.batch) << "; ++n) {\n"
    << "        for (size_t ci = 0; ci < " << u(s.C) << "; ++ci)\n"
    << "          for (size_t ih = 0; ih < " << u(s.H) << "; ++ih)\n"
    << "            memcpy(wp + (ci * " << u(s.Hp) << " + ih + " << u(s.pt) << ") * " << u(s.Wp)
    << " + " << u(s.pl) << ", p_" << x.name << " + ((n * " << u(s.C) << " + ci) * " << u(s.H)
    << " + ih) * " << u(s.W) << ", " << u(s.W * 4) << ");\n"
    << "        for (size_t t0 = 0; t0 < " << u(s.T) << "; t0 += " << u(s.Tb) << ") {\n"
    << "          const size_t t1 = t0 + " << u(s.Tb) << " < " << u(s.T) << " ? t0 + " << u(s.Tb)
    << " : " << u(s.T) << ";\n"
    << "          " << fn << "_in(wp, wv, t0, t1);\n"
    << "          " << fn << "_gemm(wu, wv, wm, (t1 - t0 + 15u) / 16u);\n"
    << "          " << fn << "_out(wm, o + n * " << u(s.M * s.OH * s.OW) << ", "
    << (b ? "p_" + b->name : std::string("NULL")) << ", t0, t1);\n"
    << "        }\n"
    << "      }\n"
    << "    } else\n"
    << "#endif\n"
    << "    {\n";
  fallback();
  c << "    }\n";
}

}  // namespace oi::c_emitter
