// conv(x, w[, b]) in generated C (ops-nn.md, ONNX Conv; f32, f64): 1-D [N, C, W] (run as 2-D
// with H = 1) and 2-D [N, C, H, W], strides, pads, dilations, group. Direct convolution: each
// output plane accumulates tap by tap in its dtype, the innermost loop running over the output
// columns the tap reaches (so padded cells are never read), then the bias is added, as the CPU
// backend does. Its summation order may differ from the backend's (ops-nn.md's tolerance).
#include <algorithm>
#include <functional>
#include <utility>

#include "c_ops.hpp"
#include "conv_winograd.hpp"
#include "matmul_simd.hpp"
#include "ops_mcu.hpp"
#include "panel_product.hpp"
#include "window.hpp"

namespace oi::c_emitter {
namespace {

// [lo, hi): the outputs o of an axis whose tap at `offset` (tap * dilation - begin pad) reads
// inside the input: 0 <= o * stride + offset < in.
std::pair<uint64_t, uint64_t> inside(uint64_t out, uint64_t in, uint64_t stride, int64_t offset) {
  uint64_t lo = 0, hi = 0;
  while (lo < out && static_cast<int64_t>(lo * stride) + offset < 0) ++lo;
  hi = lo;
  while (hi < out && static_cast<int64_t>(hi * stride) + offset < static_cast<int64_t>(in)) ++hi;
  return {lo, hi};
}

// Many output channels and few output cells (the Silero VAD's convs, the last ResNet stage):
// the loop over a group's output channels is innermost and vectorizes, over w packed as
// [group][ci][kh][kw][m] at the first call (constant weights only) into an accumulator
// [cell][m] per image.
// Each output element still sums over (ci, kh, kw) in that order, then adds the bias: the same
// result as the direct loop.
void channels_inner(KernelEnv& env, std::ostringstream& c, const Window& g, const Value& x,
                    const Value& w, const Value* b, uint64_t M, uint64_t group) {
  const uint64_t cpg = g.channels / group, mpg = M / group, taps = g.k_h * g.k_w;
  const uint64_t Q = cpg * taps, iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  const std::string T = c_type(x.dtype);
  const uint64_t size = dtype_size(x.dtype);
  const std::string wt = env.scratch(M * Q * size), yt = env.scratch(oplane * M * size);
  const std::string flag = env.state_flag();  // constant weights: packed at the first call
  c << "    " << T << "* restrict wt = (" << T << "*)s->" << wt << ";\n"
    << "    " << T << "* restrict yt = (" << T << "*)s->" << yt << ";\n";
  c << "    if (!s->" << flag << ") {\n";
  c << "      for (size_t m = 0; m < " << u(M) << "; ++m)\n"
    << "        for (size_t q = 0; q < " << u(Q) << "; ++q)\n"
    << "          wt[(m / " << u(mpg) << " * " << u(Q) << " + q) * " << u(mpg) << " + m % "
    << u(mpg) << "] = p_" << w.name << "[m * " << u(Q) << " + q];\n";
  c << "      s->" << flag << " = 1;\n    }\n";
  c << "    for (size_t n = 0; n < " << u(g.batch) << "; ++n) {\n"
    << "      for (size_t q = 0; q < " << u(oplane * M) << "; ++q) yt[q] = 0;\n"
    << "      for (size_t gi = 0; gi < " << u(group) << "; ++gi)\n"
    << "        for (size_t ci = 0; ci < " << u(cpg) << "; ++ci) {\n"
    << "          const " << T << "* xp = p_" << x.name << " + (n * " << u(g.channels) << " + gi * "
    << u(cpg) << " + ci) * " << u(iplane) << ";\n"
    << "          for (size_t kh = 0; kh < " << u(g.k_h) << "; ++kh)\n"
    << "            for (size_t kw = 0; kw < " << u(g.k_w) << "; ++kw) {\n"
    << "              const " << T << "* restrict wr = wt + (gi * " << u(Q) << " + ci * " << u(taps)
    << " + kh * " << u(g.k_w) << " + kw) * " << u(mpg) << ";\n";
  window_columns(c, g, "              ");
  c << "              for (size_t oh = 0; oh < " << u(g.out_h) << "; ++oh) {\n"
    << "                const ptrdiff_t ih = (ptrdiff_t)(oh * " << u(g.stride_h) << " + kh * "
    << u(g.dil_h) << ") - " << g.pad_top << ";\n"
    << "                if (ih < 0 || ih >= " << g.in_h << ") continue;\n"
    << "                for (size_t ow = lo; ow < hi; ++ow) {\n"
    << "                  const " << T << " xv = xp[(ptrdiff_t)((size_t)ih * " << u(g.in_w)
    << " + ow * " << u(g.stride_w) << ") + dx];\n"
    << "                  " << T << "* restrict yr = yt + (oh * " << u(g.out_w) << " + ow) * "
    << u(M) << " + gi * " << u(mpg) << ";\n"
    << "                  for (size_t mm = 0; mm < " << u(mpg) << "; ++mm) yr[mm] += wr[mm] * xv;\n"
    << "                }\n              }\n            }\n        }\n"
    << "      for (size_t m = 0; m < " << u(M) << "; ++m)\n"
    << "        for (size_t q = 0; q < " << u(oplane) << "; ++q)\n"
    << "          o[(n * " << u(M) << " + m) * " << u(oplane) << " + q] = yt[q * " << u(M)
    << " + m]" << (b ? " + p_" + b->name + "[m]" : "") << ";\n"
    << "    }\n";
}

// f32 with constant weights and few output cells (the Silero VAD's convs): per image and group
// the patch matrix pt[q][cell] (q = (ci, kh, kw), zeros where the window leaves the input; x
// itself for a 1x1 conv without stride or padding) times the weights packed at the first call,
// by panel_product.hpp's register tiles (every weight read once per image for up to 8 cells),
// the bias added as each output is stored.
// Weights packed once per state: constant ones, or each entry of a constant table chosen by a
// loop index (w[b]) at its first use.
struct Entries {
  uint64_t count = 1;
  std::string expr = "0";  // the C expression of the entry a call uses
};
Entries weight_entries(const Value& w) {
  if (w.storage == "entry") return {w.entries, "(size_t)i_" + w.index};
  return {};
}
bool packable(const Value& w) {
  return w.storage == "constant" || (w.storage == "entry" && w.entries >= 1 && w.entries <= 30);
}

void conv_panels(KernelEnv& env, std::ostringstream& c, const Window& g, const Value& x,
                 const Value& w, const Value* b, uint64_t M, uint64_t group) {
  const uint64_t cpg = g.channels / group, mpg = M / group, taps = g.k_h * g.k_w;
  const uint64_t Q = cpg * taps, iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  const bool direct = taps == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
                      g.pad_left == 0 && oplane == iplane;
  PanelProduct p;
  p.R = mpg;
  p.C = oplane;
  p.K = Q;
  p.w = "p_" + w.name;
  p.w_rs = Q;
  p.w_ks = 1;
  p.copies = group;
  p.w_copy = mpg * Q;
  p.x_cs = 1;
  p.x_ks = direct ? iplane : oplane;
  p.y_rs = oplane;
  p.y_cs = 1;
  p.bias = b != nullptr;
  p.entries = weight_entries(w).count;
  p.entry = weight_entries(w).expr;
  const PanelPlan plan = emit_panel_functions(env, p);
  emit_panel_setup(c, plan, "    ");
  const std::string pt = direct ? "" : env.scratch(Q * oplane * 4);
  if (!direct) c << "    float* restrict pt = (float*)s->" << pt << ";\n";
  c << "    for (size_t n = 0; n < " << u(g.batch) << "; ++n)\n"
    << "      for (size_t gi = 0; gi < " << u(group) << "; ++gi) {\n"
    << "        const float* xg = p_" << x.name << " + (n * " << u(g.channels) << " + gi * "
    << u(cpg) << ") * " << u(iplane) << ";\n";
  if (!direct) {
    // The patch rows of each tap, with the output cells whose input lies inside x known here:
    // zeros, a strided copy, zeros.
    c << "        for (size_t ci = 0; ci < " << u(cpg) << "; ++ci) {\n"
      << "          const float* restrict xc = xg + ci * " << u(iplane) << ";\n"
      << "          float* restrict pc = pt + ci * " << u(taps * oplane) << ";\n";
    for (uint64_t kh = 0; kh < g.k_h; ++kh)
      for (uint64_t kw = 0; kw < g.k_w; ++kw) {
        const int64_t dy = static_cast<int64_t>(kh * g.dil_h) - g.pad_top,
                      dx = static_cast<int64_t>(kw * g.dil_w) - g.pad_left;
        const auto [h0, h1] = inside(g.out_h, g.in_h, g.stride_h, dy);
        const auto [w0, w1] = inside(g.out_w, g.in_w, g.stride_w, dx);
        c << "          {\n            float* restrict r = pc + " << u((kh * g.k_w + kw) * oplane)
          << ";\n";
        if (h0 >= h1 || w0 >= w1) {
          c << "            for (size_t q = 0; q < " << u(oplane) << "; ++q) r[q] = 0.0f;\n";
        } else {
          if (h0 > 0)
            c << "            for (size_t q = 0; q < " << u(h0 * g.out_w)
              << "; ++q) r[q] = 0.0f;\n";
          c << "            for (size_t oh = " << u(h0) << "; oh < " << u(h1) << "; ++oh) {\n"
            << "              float* restrict rr = r + oh * " << u(g.out_w) << ";\n"
            << "              const ptrdiff_t base = (ptrdiff_t)(oh * " << u(g.stride_h * g.in_w)
            << ") + " << dy * static_cast<int64_t>(g.in_w) + dx << ";\n";
          if (w0 > 0)
            c << "              for (size_t ow = 0; ow < " << u(w0) << "; ++ow) rr[ow] = 0.0f;\n";
          c << "              for (size_t ow = " << u(w0) << "; ow < " << u(w1)
            << "; ++ow) rr[ow] = xc[(size_t)(base + (ptrdiff_t)(ow * " << u(g.stride_w) << "))];\n";
          if (w1 < g.out_w)
            c << "              for (size_t ow = " << u(w1) << "; ow < " << u(g.out_w)
              << "; ++ow) rr[ow] = 0.0f;\n";
          c << "            }\n";
          if (h1 < g.out_h)
            c << "            for (size_t q = " << u(h1 * g.out_w) << "; q < " << u(oplane)
              << "; ++q) r[q] = 0.0f;\n";
        }
        c << "          }\n";
      }
    c << "        }\n";
  }
  emit_panel_call(c, plan, "gi", direct ? "xg" : "pt",
                  "o + (n * " + u(M) + " + gi * " + u(mpg) + ") * " + u(oplane),
                  b ? "p_" + b->name + " + gi * " + u(mpg) : "", "        ");
  c << "      }\n";
}

// Larger output planes (ResNet's): per image and group, tiles of output cells become patch
// matrices pt[q][cell] (q = (ci, kh, kw), zeros where the window leaves the input) and the
// tile is w[group rows, q] x pt by the matmul's register blocks, vectorized over the cells.
// Each output element sums its products in q order, then adds the bias, like the direct loop
// (a padded cell adds 0 * w, which leaves a finite sum as it is).
void patches_product(KernelEnv& env, std::ostringstream& c, const Window& g, const Value& x,
                     const Value& w, const Value* b, uint64_t M, uint64_t group) {
  const uint64_t cpg = g.channels / group, mpg = M / group, taps = g.k_h * g.k_w;
  const uint64_t Q = cpg * taps, iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  // Cells per tile: the patch matrix of a tile near 256 KiB, a multiple of 4, 16 to 256.
  uint64_t tile = std::clamp<uint64_t>(65536 / std::max<uint64_t>(Q, 1), 16, 256) / 4 * 4;
  tile = std::min(tile, oplane);
  const std::string T = c_type(x.dtype);
  const uint64_t size = dtype_size(x.dtype);
  const std::string pt = env.scratch(Q * tile * size), yt = env.scratch(mpg * tile * size);
  const uint64_t full = oplane / tile * tile;
  auto tile_body = [&](uint64_t R, const std::string& first) {
    c << "        {\n          const size_t cell0 = " << first << ";\n"
      << "          for (size_t ci = 0; ci < " << u(cpg) << "; ++ci)\n"
      << "            for (size_t kh = 0; kh < " << u(g.k_h) << "; ++kh)\n"
      << "              for (size_t kw = 0; kw < " << u(g.k_w) << "; ++kw) {\n"
      << "                " << T << "* restrict prow = ptile + ((ci * " << u(g.k_h) << " + kh) * "
      << u(g.k_w) << " + kw) * " << u(R) << ";\n"
      << "                for (size_t t = 0; t < " << u(R) << "; ++t) {\n"
      << "                  const size_t cell = cell0 + t, oh = cell / " << u(g.out_w)
      << ", ow = cell % " << u(g.out_w) << ";\n"
      << "                  const ptrdiff_t ih = (ptrdiff_t)(oh * " << u(g.stride_h) << " + kh * "
      << u(g.dil_h) << ") - " << g.pad_top << ";\n"
      << "                  const ptrdiff_t iw = (ptrdiff_t)(ow * " << u(g.stride_w) << " + kw * "
      << u(g.dil_w) << ") - " << g.pad_left << ";\n"
      << "                  prow[t] = ih >= 0 && ih < " << g.in_h << " && iw >= 0 && iw < "
      << g.in_w << " ? xg[ci * " << u(iplane) << " + (size_t)ih * " << u(g.in_w)
      << " + (size_t)iw] : (" << T << ")0;\n"
      << "                }\n              }\n"
      << "          " << T << "* restrict acc = ytile;\n"
      << "          memset(acc, 0, " << mpg * R * size << "u);\n";
    emit_product(c, {"wg", "ptile", T, Q, R}, mpg, matmul_device(env.device()));
    c << "          for (size_t mm = 0; mm < " << u(mpg) << "; ++mm) {\n"
      << "            " << T << "* orow = o + (n * " << u(M) << " + gi * " << u(mpg) << " + mm) * "
      << u(oplane) << " + cell0;\n";
    if (b)
      c << "            const " << T << " bias = p_" << b->name << "[gi * " << u(mpg) << " + mm];\n"
        << "            for (size_t t = 0; t < " << u(R) << "; ++t) orow[t] = acc[mm * " << u(R)
        << " + t] + bias;\n";
    else
      c << "            for (size_t t = 0; t < " << u(R) << "; ++t) orow[t] = acc[mm * " << u(R)
        << " + t];\n";
    c << "          }\n        }\n";
  };
  c << "    " << T << "* restrict ptile = (" << T << "*)s->" << pt << ";\n"
    << "    " << T << "* restrict ytile = (" << T << "*)s->" << yt << ";\n"
    << "    for (size_t n = 0; n < " << u(g.batch) << "; ++n)\n"
    << "      for (size_t gi = 0; gi < " << u(group) << "; ++gi) {\n"
    << "        const " << T << "* xg = p_" << x.name << " + (n * " << u(g.channels) << " + gi * "
    << u(cpg) << ") * " << u(iplane) << ";\n"
    << "        const " << T << "* wg = p_" << w.name << " + gi * " << u(mpg * Q) << ";\n";
  if (full > 0) {
    c << "        for (size_t tile0 = 0; tile0 < " << u(full) << "; tile0 += " << u(tile) << ")\n";
    tile_body(tile, "tile0");
  }
  if (oplane > full) tile_body(oplane - full, u(full));
  c << "      }\n";
}

// f32 with constant weights and larger output planes (ResNet's), where the device allows the
// x86-64 micro-kernels: w packed once per state into the micro-kernel's row panels (every
// depth block, every group), and per tile of output cells the patch matrix written straight
// into the packed panels of B (each tap's row a zero run, a strided copy of an input row and a
// zero run), then matmul_simd's loop nest without packing, the bias added to the tile. The
// tile's patches stay within half of L2 (at most 8 panels). Elsewhere (another CPU, no kernel
// allowed) `fallback` writes the portable path.
void conv_gemm(KernelEnv& env, std::ostringstream& c, const Window& g, const Value& x,
               const Value& w, const Value* b, uint64_t M, uint64_t group,
               const std::function<void()>& fallback) {
  const MatmulDevice d = matmul_device(env.device());
  const SimdBlocking b2 = avx2_blocking(d), b5 = avx512_blocking(d);
  const uint64_t cpg = g.channels / group, mpg = M / group, taps = g.k_h * g.k_w;
  const uint64_t Q = cpg * taps, iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  auto tile_of = [&](const SimdBlocking& bl) {
    const uint64_t t = std::clamp<uint64_t>(d.l2_bytes / 2 / (4 * Q) / bl.nr, 1, 8) * bl.nr;
    return std::min(t, (oplane + bl.nr - 1) / bl.nr * bl.nr);
  };
  uint64_t a_floats = 0, b_floats = 0;
  for (const SimdBlocking* bl : {d.avx2 ? &b2 : nullptr, d.avx512 ? &b5 : nullptr}) {
    if (!bl) continue;
    a_floats = std::max(a_floats, (mpg + bl->mr - 1) / bl->mr * bl->mr * Q * group);
    b_floats = std::max(b_floats, Q * tile_of(*bl));
  }
  const Entries entries = weight_entries(w);
  const std::string ap = env.scratch(a_floats * entries.count * 4 + 64),
                    bp = env.scratch(b_floats * 4 + 64);
  const std::string flag = env.state_flag();
  const int allowed = (d.avx2 ? 1 : 0) | (d.avx512 ? 2 : 0);
  auto pick = [](uint64_t v2, uint64_t v5) { return "mm_isa == 2 ? " + u(v5) + " : " + u(v2); };
  c << "#ifdef OI_MM_X86\n"
    << "    const int mm_isa = oi_mm_isa(" << allowed << ");\n"
    << "    if (mm_isa) {\n"
    << "      const size_t mr = " << pick(b2.mr, b5.mr) << ", nr = " << pick(b2.nr, b5.nr)
    << ", kcb = " << pick(b2.kc, b5.kc) << ", mcb = " << pick(b2.mc, b5.mc)
    << ", tile = " << pick(tile_of(b2), tile_of(b5)) << ";\n"
    << "      const size_t apg = (" << u(mpg) << " + mr - 1) / mr * mr * " << u(Q) << ";\n"
    << "      float* const ap = oi_mm_align(s->" << ap << ") + " << entries.expr << " * apg * "
    << u(group) << ";\n"
    << "      float* const bp = oi_mm_align(s->" << bp << ");\n"
    << "      if (!(s->" << flag << " & (1 << " << entries.expr << "))) {\n"
    << "        for (size_t gi = 0; gi < " << u(group) << "; ++gi)\n"
    << "          oi_mm_pack_a_all(p_" << w.name << " + gi * " << u(mpg * Q) << ", " << u(Q) << ", "
    << u(mpg) << ", " << u(Q) << ", kcb, mr, ap + gi * apg);\n"
    << "        s->" << flag << " |= 1 << " << entries.expr << ";\n      }\n"
    << "      for (size_t n = 0; n < " << u(g.batch) << "; ++n)\n"
    << "        for (size_t gi = 0; gi < " << u(group) << "; ++gi) {\n"
    << "          const float* xg = p_" << x.name << " + (n * " << u(g.channels) << " + gi * "
    << u(cpg) << ") * " << u(iplane) << ";\n"
    << "          float* yg = o + (n * " << u(M) << " + gi * " << u(mpg) << ") * " << u(oplane)
    << ";\n"
    << "          for (size_t tile0 = 0; tile0 < " << u(oplane) << "; tile0 += tile) {\n"
    << "            const size_t nt = " << u(oplane) << " - tile0 < tile ? " << u(oplane)
    << " - tile0 : tile, npad = (nt + nr - 1) / nr * nr;\n"
    << "            for (size_t ci = 0; ci < " << u(cpg) << "; ++ci) {\n"
    << "              const float* xc = xg + ci * " << u(iplane) << ";\n";
  for (uint64_t kh = 0; kh < g.k_h; ++kh)
    for (uint64_t kw = 0; kw < g.k_w; ++kw) {
      const int64_t dy = static_cast<int64_t>(kh * g.dil_h) - g.pad_top,
                    dx = static_cast<int64_t>(kw * g.dil_w) - g.pad_left;
      const auto [w0, w1] = inside(g.out_w, g.in_w, g.stride_w, dx);
      const std::string OW = u(g.out_w);
      c << "              {\n"
        << "                const size_t k = ci * " << u(taps) << " + " << u(kh * g.k_w + kw)
        << ", p0 = k / kcb * kcb, kc = " << u(Q) << " - p0 < kcb ? " << u(Q) << " - p0 : kcb;\n"
        << "                float* bk = bp + p0 * npad + (k - p0) * nr;\n"
        << "                for (size_t oh = tile0 / " << OW << "; oh * " << OW
        << " < tile0 + nt; ++oh) {\n"
        << "                  const size_t a = oh * " << OW << " < tile0 ? tile0 - oh * " << OW
        << " : 0u;\n"
        << "                  const size_t e = (oh + 1u) * " << OW
        << " > tile0 + nt ? tile0 + nt - oh * " << OW << " : " << OW << ";\n"
        << "                  const size_t col = oh * " << OW << " + a - tile0;\n"
        << "                  const ptrdiff_t ih = (ptrdiff_t)(oh * " << u(g.stride_h) << ") + "
        << dy << ";\n";
      if (w0 >= w1) {
        c << "                  (void)ih;\n"
          << "                  oi_mm_b_run(bk, kc, nr, col, e - a, NULL, 0);\n";
      } else {
        c << "                  const size_t lo = a > " << u(w0) << " ? a : " << u(w0)
          << ", hi = e < " << u(w1) << " ? e : " << u(w1) << ";\n"
          << "                  if (ih < 0 || ih >= " << g.in_h << " || lo >= hi) {\n"
          << "                    oi_mm_b_run(bk, kc, nr, col, e - a, NULL, 0);\n"
          << "                    continue;\n                  }\n"
          << "                  if (lo > a) oi_mm_b_run(bk, kc, nr, col, lo - a, NULL, 0);\n"
          << "                  oi_mm_b_run(bk, kc, nr, col + (lo - a), hi - lo, xc + "
             "(size_t)((ptrdiff_t)ih * "
          << static_cast<int64_t>(g.in_w) << " + (ptrdiff_t)(lo * " << u(g.stride_w) << ") + " << dx
          << "), " << u(g.stride_w) << ");\n"
          << "                  if (e > hi) oi_mm_b_run(bk, kc, nr, col + (hi - a), e - hi, NULL, "
             "0);\n";
      }
      c << "                }\n              }\n";
    }
  c << "            }\n"
    << "            if (npad > nt)\n"
    << "              for (size_t k = 0; k < " << u(Q) << "; ++k) {\n"
    << "                const size_t p0 = k / kcb * kcb, kc = " << u(Q) << " - p0 < kcb ? " << u(Q)
    << " - p0 : kcb;\n"
    << "                oi_mm_b_run(bp + p0 * npad + (k - p0) * nr, kc, nr, nt, npad - nt, NULL, "
       "0);\n"
    << "              }\n"
    << "            oi_mm_gemm_pa(mm_isa, " << u(mpg) << ", nt, " << u(Q)
    << ", ap + gi * apg, bp, yg + tile0, " << u(oplane) << ", kcb, mcb);\n";
  if (b)
    c << "            for (size_t m = 0; m < " << u(mpg) << "; ++m) {\n"
      << "              float* restrict yr = yg + m * " << u(oplane) << " + tile0;\n"
      << "              const float bv = p_" << b->name << "[gi * " << u(mpg) << " + m];\n"
      << "              for (size_t t = 0; t < nt; ++t) yr[t] += bv;\n"
      << "            }\n";
  c << "          }\n        }\n    } else\n#endif\n    {\n";
  fallback();
  c << "    }\n";
}

void conv_direct(KernelEnv& env, std::ostringstream& c, const Window& g, const Value& x,
                 const Value& w, const Value* b, uint64_t M, uint64_t group);

void conv(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op);
  const auto& settings = op.at("settings").as_object();
  check_settings(settings, {"strides", "pads", "dilations", "group"}, where);
  const auto& ins = op.at("inputs").as_array();
  if (ins.size() < 2 || ins.size() > 3) invalid_plan(where + " takes x, w and an optional bias");
  const Value& x = whole_operand(env, ins.at(0), op);
  const Value& w = whole_operand(env, ins.at(1), op);
  const Value* b = ins.size() == 3 ? &whole_operand(env, ins.at(2), op) : nullptr;
  const Value& y = env.value(str(op.at("output")));
  if ((y.dtype != "f32" && y.dtype != "f64") || x.dtype != y.dtype || w.dtype != y.dtype ||
      (b && b->dtype != y.dtype))
    throw LibraryInstead("c emitter: " + where + " on " + x.dtype +
                         ": left to the C kernel library");
  if (w.shape.size() != x.shape.size())
    invalid_plan(where + ": w needs x's rank ([M, C/group, kernel...])");
  std::vector<uint64_t> kernel(w.shape.begin() + std::min<size_t>(2, w.shape.size()),
                               w.shape.end());
  const Window g = window_geometry(x, y, kernel, settings, true, where);
  const uint64_t M = w.shape[0],
                 group = static_cast<uint64_t>(int_setting(settings, "group", 1, where));
  if (group < 1 || g.channels % group || M % group || w.shape[1] * group != g.channels ||
      y.shape[1] != M || (b && (b->shape.size() != 1 || b->shape[0] != M)))
    invalid_plan(where + ": group, channels, w or the bias do not fit");
  if (y.numel() == 0) return;
  // The freestanding profile (microcontrollers): weights read in place (ops_mcu.cpp).
  if (emit_profile().freestanding) return mcu_conv(c, g, x, w, b, M, group, "o");
  // 3x3 stride-1 convs (ResNet's) as Winograd F(2x2, 3x3) where the CPU has AVX-512F, the
  // paths below elsewhere.
  if (y.dtype == "f32" && packable(w) && winograd_applies(env, g, M, group)) {
    const Entries e = weight_entries(w);
    return conv_winograd(env, c, g, x, w, b, M, e.count, e.expr,
                         [&] { conv_direct(env, c, g, x, w, b, M, group); });
  }
  conv_direct(env, c, g, x, w, b, M, group);
}

void conv_direct(KernelEnv& env, std::ostringstream& c, const Window& g, const Value& x,
                 const Value& w, const Value* b, uint64_t M, uint64_t group) {
  const uint64_t cpg = g.channels / group, mpg = M / group;
  const uint64_t iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  const std::string T = c_type(x.dtype);
  // Weights that change between calls (a table entry chosen by a loop index) are not packed.
  if (x.dtype == "f32" && packable(w) && iplane > 0 && oplane <= 256 &&
      panel_product_applies(mpg, std::min<uint64_t>(oplane, 16), cpg * g.k_h * g.k_w)) {
    conv_panels(env, c, g, x, w, b, M, group);
    return;
  }
  if (mpg >= 8 && oplane <= 64 && iplane > 0 && w.storage == "constant") {
    channels_inner(env, c, g, x, w, b, M, group);
    return;
  }
  if (x.dtype == "f32" && packable(w) && iplane > 0 && oplane > 256 && mpg >= 8) {
    const MatmulDevice d = matmul_device(env.device());
    if (d.avx2 || d.avx512) {
      conv_gemm(env, c, g, x, w, b, M, group,
                [&] { patches_product(env, c, g, x, w, b, M, group); });
      return;
    }
  }
  if ((oplane > 64 || mpg >= 8) && iplane > 0) {
    patches_product(env, c, g, x, w, b, M, group);
    return;
  }
  c << "    for (size_t n = 0; n < " << u(g.batch) << "; ++n)\n"
    << "      for (size_t m = 0; m < " << u(M) << "; ++m) {\n"
    << "        " << T << "* restrict yp = o + (n * " << u(M) << " + m) * " << u(oplane) << ";\n"
    << "        for (size_t q = 0; q < " << u(oplane) << "; ++q) yp[q] = 0;\n";
  if (iplane > 0) {
    c << "        for (size_t ci = 0; ci < " << u(cpg) << "; ++ci) {\n"
      << "          const " << T << "* xp = p_" << x.name << " + (n * " << u(g.channels)
      << " + m / " << u(mpg) << " * " << u(cpg) << " + ci) * " << u(iplane) << ";\n"
      << "          for (size_t kh = 0; kh < " << u(g.k_h) << "; ++kh)\n"
      << "            for (size_t kw = 0; kw < " << u(g.k_w) << "; ++kw) {\n"
      << "              const " << T << " wv = p_" << w.name << "[((m * " << u(cpg) << " + ci) * "
      << u(g.k_h) << " + kh) * " << u(g.k_w) << " + kw];\n";
    window_columns(c, g, "              ");
    c << "              for (size_t oh = 0; oh < " << u(g.out_h) << "; ++oh) {\n"
      << "                const ptrdiff_t ih = (ptrdiff_t)(oh * " << u(g.stride_h) << " + kh * "
      << u(g.dil_h) << ") - " << g.pad_top << ";\n"
      << "                if (ih < 0 || ih >= " << g.in_h << ") continue;\n"
      << "                const " << T << "* xr = xp + (size_t)ih * " << u(g.in_w) << ";\n"
      << "                " << T << "* yr = yp + oh * " << u(g.out_w) << ";\n"
      << "                for (size_t ow = lo; ow < hi; ++ow)\n"
      << "                  yr[ow] += wv * xr[(ptrdiff_t)(ow * " << u(g.stride_w) << ") + dx];\n"
      << "              }\n"
      << "            }\n"
      << "        }\n";
  }
  if (b)
    c << "        const " << T << " bias = p_" << b->name << "[m];\n"
      << "        for (size_t q = 0; q < " << u(oplane) << "; ++q) yp[q] += bias;\n";
  c << "      }\n";
}

}  // namespace

void register_conv_ops(OpTable& t) {
  t.ops["conv"] = conv;
  t.helpers.push_back(kPanelHelpersC);
}

}  // namespace oi::c_emitter
