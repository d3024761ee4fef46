// max_pool and avg_pool in generated C (ops-nn.md): 1-D and 2-D windows with `kernel`,
// `strides`, `pads`, `dilations` (max only) and `count_include_pad` (avg only). Each output
// cell visits the taps of its window that fall inside the input in row-major order, as the CPU
// backend does: padded cells never win a max (a NaN wins, -0.0 below +0.0; a window of padding
// only gives -inf, or INT32_MIN for i32) and count in a mean only with count_include_pad=true.
#include <utility>

#include "c_ops.hpp"
#include "matmul_simd.hpp"
#include "window.hpp"

namespace oi::c_emitter {
namespace {

// AVX-512F for the outputs [lo, hi) of a row whose windows lie inside the input (stride 1 or
// 2, no dilation): 16 outputs per vector, each tap's 16 inputs one load (stride 1) or the even
// lanes of two (stride 2), the integer keys of max_pool_f32 below. It returns 1 where a window
// held a NaN (the caller redoes the row with the scalar code, which finds the first NaN).
std::string max_pool_row_avx512(const Window& g, const std::string& name, uint64_t lo,
                                uint64_t hi) {
  std::ostringstream c;
  c << "static OI_HELPER __attribute__((target(\"avx512f\"))) int " << name
    << "(const float* restrict xp, float* restrict yr, size_t oh) {\n"
    << "  const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, "
       "26, 28, 30);\n"
    << "  const __m512i mag = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);\n"
    << "  (void)ev;\n"
    << "  __mmask16 nan = 0;\n"
    << "  const float* restrict x0 = xp + (size_t)((ptrdiff_t)(oh * " << u(g.stride_h) << ") - "
    << g.pad_top << ") * " << u(g.in_w) << ";\n"
    << "  for (size_t ow = " << u(lo) << "; ow < " << u(hi) << "; ow += 16u) {\n"
    << "    const size_t n = " << u(hi) << " - ow < 16u ? " << u(hi) << " - ow : 16u;\n"
    << "    const __mmask16 k = (__mmask16)((1u << n) - 1u);\n"
    << "    /* the input columns the vector's taps read, from its first one on */\n"
    << "    const size_t c0 = ow * " << u(g.stride_w) << " - " << g.pad_left << ";\n"
    << "    const size_t left = " << u(g.in_w) << " - c0;\n"
    << "    __m512i best = _mm512_set1_epi32((int)0x807fffff);\n"
    << "    for (size_t kh = 0; kh < " << u(g.k_h) << "; ++kh) {\n"
    << "      const float* restrict r = x0 + kh * " << u(g.in_w) << " + c0;\n"
    << "      for (size_t kw = 0; kw < " << u(g.k_w) << "; ++kw) {\n";
  if (g.stride_w == 1) {
    c << "        const __m512i b = _mm512_castps_si512(_mm512_maskz_loadu_ps(k, r + kw));\n";
  } else {
    c << "        const size_t a = left - kw;\n"
      << "        const __mmask16 k0 = (__mmask16)(a >= 16u ? 0xFFFFu : (1u << a) - 1u);\n"
      << "        const __mmask16 k1 =\n"
      << "            (__mmask16)(a >= 32u ? 0xFFFFu : a <= 16u ? 0u : (1u << (a - 16u)) - 1u);\n"
      << "        const __m512 l0 = _mm512_maskz_loadu_ps(k0, r + kw);\n"
      << "        const __m512 l1 = k1 ? _mm512_maskz_loadu_ps(k1, r + kw + 16) : "
         "_mm512_setzero_ps();\n"
      << "        const __m512i b = _mm512_castps_si512(_mm512_permutex2var_ps(l0, ev, l1));\n";
  }
  c << "        nan |= _mm512_mask_cmpgt_epi32_mask(k, _mm512_and_si512(b, mag), inf);\n"
    << "        const __m512i key = _mm512_xor_si512(b, _mm512_and_si512(_mm512_srai_epi32(b, "
       "31), mag));\n"
    << "        best = _mm512_max_epi32(best, key);\n"
    << "      }\n"
    << "    }\n"
    << "    const __m512i m = _mm512_xor_si512(best, _mm512_and_si512(_mm512_srai_epi32(best, 31), "
       "mag));\n"
    << "    _mm512_mask_storeu_ps(yr + ow, k, _mm512_castsi512_ps(m));\n"
    << "    (void)left;\n"
    << "  }\n"
    << "  return nan != 0;\n"
    << "}\n\n";
  return c.str();
}

// f32 max_pool without a branch per tap: each tap's value becomes an integer key whose order is
// the float order with -0.0 below +0.0 (oi_max_f's), the keys' maximum is the result; a window
// holding a NaN (flagged on the side, rare) is searched again for its first NaN in tap order,
// which oi_max_f's fold returns. Padded taps are skipped by the ranges of valid taps computed
// per output row and column (no test per tap); a window of padding only gives -inf.
void max_pool_f32(KernelEnv& env, std::ostringstream& c, const Window& g, const std::string& x) {
  const uint64_t iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  // The outputs whose window lies inside the input along an axis: [lo, hi).
  auto whole = [](uint64_t out, uint64_t in, uint64_t stride, uint64_t dil, int64_t pad,
                  uint64_t taps) {
    uint64_t lo = 0;
    while (lo < out && static_cast<int64_t>(lo * stride) - pad < 0) ++lo;
    uint64_t hi = lo;
    while (hi < out &&
           static_cast<int64_t>(hi * stride + (taps - 1) * dil) - pad < static_cast<int64_t>(in))
      ++hi;
    return std::pair<uint64_t, uint64_t>{lo, hi};
  };
  const auto [ih0, ih1] = whole(g.out_h, g.in_h, g.stride_h, g.dil_h, g.pad_top, g.k_h);
  const auto [iw0, iw1] = whole(g.out_w, g.in_w, g.stride_w, g.dil_w, g.pad_left, g.k_w);
  // The taps [lo, hi) of output o that read inside the input (general outputs only).
  auto range = [&](const char* o, uint64_t stride, uint64_t dil, int64_t pad, uint64_t taps,
                   uint64_t in, const char* lo, const char* hi, const std::string& ind) {
    c << ind << "const ptrdiff_t " << lo << "_base = (ptrdiff_t)(" << o << " * " << u(stride)
      << ") - " << pad << ";\n"
      << ind << "size_t " << lo << " = 0, " << hi << " = " << u(taps) << ";\n"
      << ind << "while (" << lo << " < " << hi << " && " << lo << "_base + (ptrdiff_t)(" << lo
      << " * " << u(dil) << ") < 0) ++" << lo << ";\n"
      << ind << "while (" << hi << " > " << lo << " && " << lo << "_base + (ptrdiff_t)((" << hi
      << " - 1u) * " << u(dil) << ") >= " << static_cast<int64_t>(in) << ") --" << hi << ";\n";
  };
  // One output from the taps kh in [h0, h1), kw in [w0, w1) (C expressions).
  auto body = [&](const std::string& h0, const std::string& h1, const std::string& w0,
                  const std::string& w1, const std::string& ind) {
    const std::string at = "xp[(size_t)(h0_base + (ptrdiff_t)(kh * " + u(g.dil_h) + ")) * " +
                           u(g.in_w) + " + (size_t)(w0_base + (ptrdiff_t)(kw * " + u(g.dil_w) +
                           "))]";
    c << ind << "int32_t best = (int32_t)0x807fffff; /* the key of -inf */\n"
      << ind << "uint32_t nan = 0;\n"
      << ind << "for (size_t kh = " << h0 << "; kh < " << h1 << "; ++kh)\n"
      << ind << "  for (size_t kw = " << w0 << "; kw < " << w1 << "; ++kw) {\n"
      << ind << "    const float v = " << at << ";\n"
      << ind << "    uint32_t b;\n"
      << ind << "    memcpy(&b, &v, sizeof b);\n"
      << ind << "    nan |= (uint32_t)((b & 0x7fffffffu) > 0x7f800000u);\n"
      << ind
      << "    const int32_t key = (int32_t)(b ^ ((uint32_t)((int32_t)b >> 31) & 0x7fffffffu));\n"
      << ind << "    best = key > best ? key : best;\n"
      << ind << "  }\n"
      << ind << "float m;\n"
      << ind << "if (nan) {\n"
      << ind << "  m = -(float)INFINITY;\n"
      << ind << "  for (size_t kh = " << h0 << "; kh < " << h1 << "; ++kh)\n"
      << ind << "    for (size_t kw = " << w0 << "; kw < " << w1 << "; ++kw) m = oi_max_f(m, " << at
      << ");\n"
      << ind << "} else {\n"
      << ind << "  const uint32_t b = (uint32_t)best ^ ((uint32_t)(best >> 31) & 0x7fffffffu);\n"
      << ind << "  memcpy(&m, &b, sizeof m);\n"
      << ind << "}\n"
      << ind << "yp[oh * " << u(g.out_w) << " + ow] = m;\n";
  };
  if (matmul_device(env.device()).avx512)
    c << "    int mp_isa = 0;\n"
      << "#ifdef OI_MM_X86\n"
      << "    mp_isa = oi_mm_isa(2);\n"
      << "#endif\n"
      << "    (void)mp_isa;\n";
  c << "    for (size_t pl = 0; pl < " << u(g.batch * g.channels) << "; ++pl) {\n"
    << "      const float* xp = p_" << x << " + pl * " << u(iplane) << ";\n"
    << "      float* yp = o + pl * " << u(oplane) << ";\n"
    << "      for (size_t oh = 0; oh < " << u(g.out_h) << "; ++oh) {\n";
  range("oh", g.stride_h, g.dil_h, g.pad_top, g.k_h, g.in_h, "h0", "h1", "        ");
  // Rows with every tap inside and the columns with every tap inside: constant tap loops.
  c << "        size_t ow = 0;\n";
  if (ih0 < ih1 && iw0 < iw1) {
    c << "        if (" << (ih0 > 0 ? "oh >= " + u(ih0) + " && " : std::string()) << "oh < "
      << u(ih1) << ") {\n";
    if (iw0 > 0) {
      c << "          for (; ow < " << u(iw0) << "; ++ow) {\n";
      range("ow", g.stride_w, g.dil_w, g.pad_left, g.k_w, g.in_w, "w0", "w1", "            ");
      body("h0", "h1", "w0", "w1", "            ");
      c << "          }\n";
    }
    // The inside as vectors where the device allows AVX-512F (stride 1 or 2, no dilation), the
    // scalar loop where the CPU lacks it or a window held a NaN.
    const bool vec =
        matmul_device(env.device()).avx512 && g.stride_w <= 2 && g.dil_w == 1 && iw1 - iw0 >= 16;
    if (vec) {
      const std::string fn = "mp_" + std::to_string(env.kernel_id()) + "_row";
      env.function("#ifdef OI_MM_X86\n" + max_pool_row_avx512(g, fn, iw0, iw1) + "#endif\n\n");
      c << "#ifdef OI_MM_X86\n"
        << "          if (mp_isa == 2 && !" << fn << "(xp, yp + oh * " << u(g.out_w)
        << ", oh)) ow = " << u(iw1) << ";\n"
        << "#endif\n";
    }
    c << "          for (; ow < " << u(iw1) << "; ++ow) {\n"
      << "            const ptrdiff_t w0_base = (ptrdiff_t)(ow * " << u(g.stride_w) << ") - "
      << g.pad_left << ";\n";
    body("0u", u(g.k_h), "0u", u(g.k_w), "            ");
    c << "          }\n        }\n";
  }
  c << "        for (; ow < " << u(g.out_w) << "; ++ow) {\n";
  range("ow", g.stride_w, g.dil_w, g.pad_left, g.k_w, g.in_w, "w0", "w1", "          ");
  body("h0", "h1", "w0", "w1", "          ");
  c << "        }\n      }\n    }\n";
}

void pool(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op), name = str(op.at("op"));
  const bool is_max = name == "max_pool";
  const auto& settings = op.at("settings").as_object();
  if (is_max)
    check_settings(settings, {"kernel", "strides", "pads", "dilations"}, where);
  else
    check_settings(settings, {"kernel", "strides", "pads", "count_include_pad"}, where);
  const Value& x = whole_operand(env, op.at("inputs").as_array().at(0), op);
  const Value& y = env.value(str(op.at("output")));
  const bool flt = y.dtype == "f32" || y.dtype == "f64";
  if (x.dtype != y.dtype || (!flt && (!is_max || y.dtype != "i32")))
    throw LibraryInstead("c emitter: " + where + " on " + x.dtype +
                         ": left to the C kernel library");
  if (!settings.contains("kernel")) invalid_plan(where + ": 'kernel' is required");
  std::vector<uint64_t> kernel;
  for (int64_t k : int_list_setting(settings, "kernel", where)) {
    if (k < 1) invalid_plan(where + ": a kernel size below 1");
    kernel.push_back(static_cast<uint64_t>(k));
  }
  const Window g = window_geometry(x, y, kernel, settings, is_max, where);
  if (y.shape[1] != g.channels) invalid_plan(where + ": y must be [N, C, ...]");
  const bool include_pad = settings.contains("count_include_pad") &&
                           settings.at("count_include_pad").is_bool() &&
                           settings.at("count_include_pad").as_bool();
  if (y.numel() == 0) return;
  const std::string T = c_type(y.dtype), sfx = y.dtype == "f32" ? "f" : "d";
  const uint64_t iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  if (is_max && y.dtype == "f32") {
    max_pool_f32(env, c, g, x.name);
    return;
  }
  c << "    for (size_t pl = 0; pl < " << u(g.batch * g.channels) << "; ++pl) {\n"
    << "      const " << T << "* xp = p_" << x.name << " + pl * " << u(iplane) << ";\n"
    << "      " << T << "* yp = o + pl * " << u(oplane) << ";\n"
    << "      for (size_t oh = 0; oh < " << u(g.out_h) << "; ++oh)\n"
    << "        for (size_t ow = 0; ow < " << u(g.out_w) << "; ++ow) {\n";
  if (is_max)
    c << "          " << T << " m = " << (flt ? "-(" + T + ")INFINITY" : "INT32_MIN") << ";\n";
  else
    c << "          " << T << " sum = 0;\n          size_t count = 0;\n";
  c << "          for (size_t kh = 0; kh < " << u(g.k_h) << "; ++kh) {\n"
    << "            const ptrdiff_t ih = (ptrdiff_t)(oh * " << u(g.stride_h) << " + kh * "
    << u(g.dil_h) << ") - " << g.pad_top << ";\n"
    << "            if (ih < 0 || ih >= " << g.in_h << ") continue;\n"
    << "            for (size_t kw = 0; kw < " << u(g.k_w) << "; ++kw) {\n"
    << "              const ptrdiff_t iw = (ptrdiff_t)(ow * " << u(g.stride_w) << " + kw * "
    << u(g.dil_w) << ") - " << g.pad_left << ";\n"
    << "              if (iw < 0 || iw >= " << g.in_w << ") continue;\n"
    << "              const " << T << " v = xp[(size_t)ih * " << u(g.in_w) << " + (size_t)iw];\n";
  if (is_max)
    c << "              m = " << (flt ? "oi_max_" + sfx + "(m, v)" : "v > m ? v : m") << ";\n";
  else
    c << "              sum += v;\n              ++count;\n";
  c << "            }\n          }\n";
  if (is_max)
    c << "          yp[oh * " << u(g.out_w) << " + ow] = m;\n";
  else if (include_pad)
    c << "          (void)count;\n          yp[oh * " << u(g.out_w) << " + ow] = sum / (" << T
      << ")" << g.k_h * g.k_w << ";\n";
  else
    c << "          yp[oh * " << u(g.out_w) << " + ow] = sum / (" << T << ")count;\n";
  c << "        }\n    }\n";
}

}  // namespace

void register_pool_ops(OpTable& t) {
  t.ops["max_pool"] = pool;
  t.ops["avg_pool"] = pool;
}

}  // namespace oi::c_emitter
