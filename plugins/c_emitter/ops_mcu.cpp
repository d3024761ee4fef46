// Kernels of the freestanding profile (microcontrollers, docs/synth.md): conv and the matmul's
// product as register blocks that read the weights where they are (const arrays in flash), with
// no packing and no scratch. Written for scalar FPUs such as the Cortex-M4F's: a block of R
// output rows by T output columns stays in registers (R x T <= 16 accumulators), each step of
// the reduction loads R weights and the inputs it needs once and does R x T fused multiply-adds
// (OI_FMAF / OI_FMA: fmaf where the FPU has it), and GCC walks the rows with post-incremented
// loads. Every output element still sums its products in the reduction's order (conv: ci, kh,
// kw, skipping taps in the padding; matmul: k), then adds the bias.
#include <algorithm>
#include <map>
#include <set>

#include "c_ops.hpp"
#include "ops_mcu.hpp"

namespace oi::c_emitter {
namespace {

std::string acc(uint64_t r, uint64_t t) {
  return "a" + std::to_string(r) + "_" + std::to_string(t);
}

std::string fma_macro(const std::string& T) {
  return T == "float" ? "OI_FMAF" : "OI_FMA";
}

// One block of output columns of a conv: `count` columns from `first` (a constant, or the
// runtime `ow0` of a loop over interior blocks, where every tap is inside the row).
struct Columns {
  uint64_t first = 0, count = 0;
  bool loop = false;  // first is ow0, a loop variable; every tap valid
};

}  // namespace

void mcu_conv(std::ostringstream& c, const Window& g, const Value& x, const Value& w,
              const Value* b, uint64_t M, uint64_t group, const std::string& out) {
  const std::string T = c_type(x.dtype), F = fma_macro(T);
  const uint64_t cpg = g.channels / group, mpg = M / group, taps = g.k_h * g.k_w;
  const uint64_t Q = cpg * taps, iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  const uint64_t tb = std::min<uint64_t>(g.out_w, 4);
  const uint64_t rb = std::max<uint64_t>(1, std::min<uint64_t>({16 / tb, 8, mpg}));
  const auto sw = static_cast<int64_t>(g.stride_w), dw = static_cast<int64_t>(g.dil_w);
  const int64_t W = static_cast<int64_t>(g.in_w);
  // Static column blocks, and runs of interior blocks (all taps inside) as one loop.
  auto column = [&](uint64_t ow, uint64_t kw) {
    return static_cast<int64_t>(ow) * sw + static_cast<int64_t>(kw) * dw - g.pad_left;
  };
  auto interior = [&](uint64_t first, uint64_t count) {
    if (count != tb) return false;
    for (uint64_t t = 0; t < count; ++t)
      for (uint64_t kw = 0; kw < g.k_w; ++kw) {
        const int64_t iw = column(first + t, kw);
        if (iw < 0 || iw >= W) return false;
      }
    return true;
  };
  std::vector<Columns> blocks;
  for (uint64_t ow = 0; ow < g.out_w; ow += tb) {
    const uint64_t count = std::min(tb, g.out_w - ow);
    if (interior(ow, count) && ow + tb < g.out_w && interior(ow + tb, tb)) {
      uint64_t end = ow;
      while (end < g.out_w && end + tb <= g.out_w && interior(end, tb)) end += tb;
      blocks.push_back({ow, end - ow, true});
      ow = end - tb;
      continue;
    }
    blocks.push_back({ow, count, false});
  }
  // The rows [m0, m0 + R) over every column block, for one oh.
  auto rows = [&](uint64_t R, const std::string& ind) {
    for (uint64_t r = 0; r < R; ++r)
      c << ind << "const " << T << "* const w" << r << " = wg + (m0 + " << r << "u) * " << u(Q)
        << ";\n"
        << ind << T << "* const o" << r << " = og + (m0 + " << r << "u) * " << u(oplane) << ";\n";
    c << ind << "for (size_t oh = 0; oh < " << u(g.out_h) << "; ++oh) {\n";
    for (const Columns& blk : blocks) {
      std::string in = ind + "  ";
      const uint64_t nt = blk.loop ? tb : blk.count;
      if (blk.loop)
        c << in << "for (size_t ow0 = " << u(blk.first) << "; ow0 < " << u(blk.first + blk.count)
          << "; ow0 += " << u(tb) << ") {\n";
      else
        c << in << "{\n";
      in += "  ";
      for (uint64_t r = 0; r < R; ++r) {
        c << in << T;
        for (uint64_t t = 0; t < nt; ++t) c << (t ? ", " : " ") << acc(r, t) << " = 0";
        c << ";\n";
      }
      c << in << "const " << T << "* xc = xg;\n";
      for (uint64_t r = 0; r < R; ++r)
        c << in << "const " << T << "* wp" << r << " = w" << r << ";\n";
      // The taps of input channel xc + cu (weights wpR + cu * taps): every row of taps of the
      // window, each input it reads loaded once.
      auto channel = [&](uint64_t cu, const std::string& in2) {
        const std::string in3 = in2 + "  ";
        c << in2 << "for (size_t kh = 0; kh < " << u(g.k_h) << "; ++kh) {\n"
          << in3 << "const ptrdiff_t ih = (ptrdiff_t)(oh * " << u(g.stride_h) << " + kh * "
          << u(g.dil_h) << ") - " << g.pad_top << ";\n"
          << in3 << "if (ih < 0 || ih >= " << g.in_h << ") continue;\n"
          << in3 << "const " << T << "* const xr = xc + " << u(cu * iplane) << " + (size_t)ih * "
          << u(g.in_w) << (blk.loop ? " + ow0 * " + u(g.stride_w) : std::string()) << ";\n";
        std::map<int64_t, std::string> xs;
        auto xname = [&](int64_t off) {
          auto it = xs.find(off);
          if (it != xs.end()) return it->second;
          const std::string n = "x" + std::to_string(xs.size());
          xs[off] = n;
          c << in3 << "const " << T << " " << n << " = xr[" << off << "];\n";
          return n;
        };
        for (uint64_t kw = 0; kw < g.k_w; ++kw) {
          std::vector<std::pair<uint64_t, std::string>> used;  // column t, its input
          for (uint64_t t = 0; t < nt; ++t) {
            const int64_t off =
                blk.loop ? static_cast<int64_t>(t) * sw + static_cast<int64_t>(kw) * dw - g.pad_left
                         : column(blk.first + t, kw);
            if (!blk.loop && (off < 0 || off >= W)) continue;  // in the padding: no tap
            used.push_back({t, xname(off)});
          }
          if (used.empty()) continue;
          for (uint64_t r = 0; r < R; ++r) {
            c << in3 << "{\n"
              << in3 << "  const " << T << " v = wp" << r << "[" << u(cu * taps) << " + kh * "
              << u(g.k_w) << " + " << kw << "u];\n";
            for (const auto& [t, xv] : used)
              c << in3 << "  " << acc(r, t) << " = " << F << "(v, " << xv << ", " << acc(r, t)
                << ");\n";
            c << in3 << "}\n";
          }
        }
        c << in2 << "}\n";
      };
      // Two input channels per pass (half the loop's pointer steps), then the odd one.
      const uint64_t pairs = cpg / 2;
      if (pairs > 0) {
        c << in << "for (size_t ci = 0; ci < " << u(pairs) << "; ++ci) {\n";
        channel(0, in + "  ");
        channel(1, in + "  ");
        c << in << "  xc += " << u(2 * iplane) << ";\n";
        for (uint64_t r = 0; r < R; ++r) c << in << "  wp" << r << " += " << u(2 * taps) << ";\n";
        c << in << "}\n";
      }
      if (cpg % 2) {
        c << in << "{\n";
        channel(0, in + "  ");
        c << in << "}\n";
      }
      for (uint64_t r = 0; r < R; ++r)
        for (uint64_t t = 0; t < nt; ++t)
          c << in << "o" << r << "[oh * " << u(g.out_w) << " + "
            << (blk.loop ? "ow0 + " + u(t) : u(blk.first + t)) << "] = " << acc(r, t)
            << (b ? " + bg[m0 + " + std::to_string(r) + "u]" : "") << ";\n";
      c << ind << "  }\n";
    }
    c << ind << "}\n";
  };
  c << "    for (size_t n = 0; n < " << u(g.batch) << "; ++n)\n"
    << "      for (size_t gi = 0; gi < " << u(group) << "; ++gi) {\n"
    << "        const " << T << "* const xg = p_" << x.name << " + (n * " << u(g.channels)
    << " + gi * " << u(cpg) << ") * " << u(iplane) << ";\n"
    << "        const " << T << "* const wg = p_" << w.name << " + gi * " << u(mpg * Q) << ";\n"
    << "        " << T << "* const og = " << out << " + (n * " << u(M) << " + gi * " << u(mpg)
    << ") * " << u(oplane) << ";\n";
  if (b)
    c << "        const " << T << "* const bg = p_" << b->name << " + gi * " << u(mpg) << ";\n";
  c << "        size_t m0 = 0;\n"
    << "        for (; m0 + " << u(rb) << " <= " << u(mpg) << "; m0 += " << u(rb) << ") {\n";
  rows(rb, "          ");
  c << "        }\n";
  if (mpg % rb) {
    c << "        {\n";
    rows(mpg % rb, "          ");
    c << "        }\n";
  }
  c << "      }\n";
}

void mcu_product(std::ostringstream& c, const ProductNames& n, uint64_t M) {
  const std::string T = n.T, F = fma_macro(T);
  const uint64_t K = n.K, N = n.N;
  // Rows by columns of the block: a matrix-vector product (N = 1) takes 8 rows, a vector-matrix
  // product (M = 1) 16 columns, anything else 4 x 4.
  const uint64_t tb = N == 1 ? 1 : M == 1 ? std::min<uint64_t>(N, 16) : std::min<uint64_t>(N, 4);
  const uint64_t rb = std::min<uint64_t>(M, std::max<uint64_t>(1, std::min<uint64_t>(16 / tb, 8)));
  auto block = [&](uint64_t R, uint64_t TN, const std::string& ind) {
    c << ind << "{\n";
    for (uint64_t r = 0; r < R; ++r) {
      c << ind << "  " << T;
      for (uint64_t t = 0; t < TN; ++t) c << (t ? ", " : " ") << acc(r, t) << " = 0";
      c << ";\n"
        << ind << "  const " << T << "* ap" << r << " = " << n.a << " + (i0 + " << r << "u) * "
        << u(K) << ";\n";
    }
    c << ind << "  const " << T << "* bp = " << n.b << " + j0;\n";
    // One step of depth per pass: GCC walks the rows with post-incremented loads (VLDMIA
    // rN!), which unrolling the depth would turn into offset loads and pointer additions.
    c << ind << "  for (size_t k = 0; k < " << u(K) << "; ++k) {\n";
    for (uint64_t t = 0; t < TN; ++t)
      c << ind << "    const " << T << " b" << t << " = bp[" << t << "];\n";
    for (uint64_t r = 0; r < R; ++r) {
      c << ind << "    const " << T << " v" << r << " = *ap" << r << "++;\n";
      for (uint64_t t = 0; t < TN; ++t)
        c << ind << "    " << acc(r, t) << " = " << F << "(v" << r << ", b" << t << ", "
          << acc(r, t) << ");\n";
    }
    c << ind << "    bp += " << u(N) << ";\n" << ind << "  }\n";
    for (uint64_t r = 0; r < R; ++r)
      for (uint64_t t = 0; t < TN; ++t)
        c << ind << "  acc[(i0 + " << r << "u) * " << u(N) << " + j0 + " << t
          << "u] = " << acc(r, t) << ";\n";
    c << ind << "}\n";
  };
  auto columns = [&](uint64_t R, const std::string& ind) {
    const uint64_t full = N / tb * tb;
    if (full > 0) {
      c << ind << "for (size_t j0 = 0; j0 < " << u(full) << "; j0 += " << u(tb) << ")\n";
      block(R, tb, ind + "  ");
    }
    if (N > full) {
      c << ind << "{\n" << ind << "  const size_t j0 = " << u(full) << ";\n";
      block(R, N - full, ind + "  ");
      c << ind << "}\n";
    }
  };
  const uint64_t fullm = M / rb * rb;
  if (fullm > 0) {
    c << "  for (size_t i0 = 0; i0 < " << u(fullm) << "; i0 += " << u(rb) << ") {\n";
    columns(rb, "    ");
    c << "  }\n";
  }
  if (M > fullm) {
    c << "  {\n    const size_t i0 = " << u(fullm) << ";\n";
    columns(M - fullm, "    ");
    c << "  }\n";
  }
}

}  // namespace oi::c_emitter
