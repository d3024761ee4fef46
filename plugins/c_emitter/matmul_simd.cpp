// The x86-64 SIMD matmul of generated C (matmul_simd.hpp): BLIS's loop nest over packed panels.
//   for jc (NC columns) / for pc (KC depth) / for ic (MC rows, A packed) / for jr (NR) / for ir
//   (MR): micro-kernel, an MR x NR tile of C in vector registers over KC steps.
// B is packed whole (once per state for constant weights), each KC-deep block of it as NR-wide
// column panels, so the NC passes only pick panels. Each output element sums its KC-long runs
// of products with fused multiply-adds in k order and adds the runs in k order: a summation
// order other than the portable path's, within ops.md's matmul tolerance.
#include "matmul_simd.hpp"

#include <algorithm>

namespace oi::c_emitter {
namespace {

// One micro-kernel's instruction set, spelled for the generated C.
struct Isa {
  const char* name;             // oi_mm_kernel_NAME
  const char* target;           // the function's target attribute
  const char* vec;              // the vector type
  const char* pfx;              // the intrinsics' prefix
  uint64_t lanes, mr, vectors;  // f32 lanes per vector; tile rows; vectors per tile row
};
constexpr Isa kAvx2{"avx2", "avx2,fma", "__m256", "_mm256", 8, 6, 2};
constexpr Isa kAvx512{"avx512", "avx512f", "__m512", "_mm512", 16, 8, 2};

// The micro-kernel, unrolled over the tile: per depth step the NR values of B are loaded once
// and each row's A value broadcast into MR x NR/lanes fused multiply-adds. A full tile is
// written straight from the registers, an edge tile (rows past h, columns past w, computed
// from zero padding) through a local array.
std::string micro_kernel(const Isa& s) {
  const uint64_t nr = s.lanes * s.vectors;
  const std::string v = s.vec, p = s.pfx;
  auto acc = [](uint64_t r, uint64_t q) {
    return "c" + std::to_string(r) + "_" + std::to_string(q);
  };
  std::ostringstream c;
  c << "/* c[h, w] (row stride ldc) = (first ? 0 : c) + ap x bp over kc depth steps: ap holds "
    << s.mr << " rows per step,\n * bp " << nr << " columns per step, both zero-padded. */\n"
    << "static OI_HELPER __attribute__((target(\"" << s.target << "\"))) void oi_mm_kernel_"
    << s.name
    << "(\n    size_t kc, const float* restrict ap, const float* restrict bp, float* restrict c, "
       "size_t ldc,\n    int first, size_t h, size_t w) {\n";
  for (uint64_t r = 0; r < s.mr; ++r) {
    c << "  " << v;
    for (uint64_t q = 0; q < s.vectors; ++q)
      c << (q ? ", " : " ") << acc(r, q) << " = " << p << "_setzero_ps()";
    c << ";\n";
  }
  c << "  for (size_t k = 0; k < kc; ++k) {\n";
  for (uint64_t q = 0; q < s.vectors; ++q)
    c << "    const " << v << " b" << q << " = " << p << "_loadu_ps(bp + " << q * s.lanes << ");\n";
  for (uint64_t r = 0; r < s.mr; ++r) {
    c << "    {\n      const " << v << " a = " << p << "_set1_ps(ap[" << r << "]);\n";
    for (uint64_t q = 0; q < s.vectors; ++q)
      c << "      " << acc(r, q) << " = " << p << "_fmadd_ps(a, b" << q << ", " << acc(r, q)
        << ");\n";
    c << "    }\n";
  }
  c << "    ap += " << s.mr << ";\n    bp += " << nr << ";\n  }\n";
  c << "  if (h == " << s.mr << " && w == " << nr << ") {\n    if (first) {\n";
  for (uint64_t r = 0; r < s.mr; ++r)
    for (uint64_t q = 0; q < s.vectors; ++q)
      c << "      " << p << "_storeu_ps(c + " << r << " * ldc + " << q * s.lanes << ", "
        << acc(r, q) << ");\n";
  c << "    } else {\n";
  for (uint64_t r = 0; r < s.mr; ++r)
    for (uint64_t q = 0; q < s.vectors; ++q) {
      const std::string at = "c + " + std::to_string(r) + " * ldc + " + std::to_string(q * s.lanes);
      c << "      " << p << "_storeu_ps(" << at << ", " << p << "_add_ps(" << p << "_loadu_ps("
        << at << "), " << acc(r, q) << "));\n";
    }
  c << "    }\n    return;\n  }\n  float t[" << s.mr * nr << "];\n";
  for (uint64_t r = 0; r < s.mr; ++r)
    for (uint64_t q = 0; q < s.vectors; ++q)
      c << "  " << p << "_storeu_ps(t + " << r * nr + q * s.lanes << ", " << acc(r, q) << ");\n";
  c << "  for (size_t r = 0; r < h; ++r)\n    for (size_t j = 0; j < w; ++j)\n"
    << "      c[r * ldc + j] = first ? t[r * " << nr << " + j] : c[r * ldc + j] + t[r * " << nr
    << " + j];\n}\n\n";
  return c.str();
}

// Detection, packing and the loop nest; micro-kernels appended.
const char* const kSimdSupportC =
    R"C(#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The x86-64 SIMD matmul (f32): micro-kernels for AVX2+FMA and AVX-512F (those the plan's
 * device allows) built by target attributes, so the file needs no -m flags; the one to run is
 * picked at run time. */
#include <immintrin.h>
#define OI_MM_X86 1

/* 2: AVX-512F, 1: AVX2 and FMA, 0: neither (the portable loops run), among the kernels the
 * generator emitted for the device (`allowed`: bit 0 AVX2, bit 1 AVX-512) and those the build
 * allows: -DOI_MM_KERNELS=1 keeps AVX-512 out, 0 leaves the portable loops (tests use both). */
static OI_HELPER int oi_mm_isa(int allowed) {
  allowed &= @EMITTED@; /* the micro-kernels this file holds */
#ifdef OI_MM_KERNELS
  allowed &= OI_MM_KERNELS;
#endif
  /* libgcc (compiler-rt) fills in the CPU model before main: a read of it, no state here. */
  if ((allowed & 2) && __builtin_cpu_supports("avx512f")) return 2;
  if ((allowed & 1) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
  return 0;
}

/* The first 64-byte boundary in a buffer allocated 64 bytes longer than it is used. */
static OI_HELPER float* oi_mm_align(void* p) {
  return (float*)(((uintptr_t)p + 63u) & ~(uintptr_t)63u);
}

/* b[K, N] (row stride ldb) -> bp: per block of kcb depth steps (the last may be shorter) at
 * bp + p0 * npad, per panel of nr columns at + j0 * kc, kc rows of nr values, zeros past N. */
static OI_HELPER void oi_mm_pack_b(const float* b, size_t ldb, size_t K, size_t N, size_t kcb,
                                   size_t nr, float* restrict bp) {
  const size_t npad = (N + nr - 1) / nr * nr;
  for (size_t p0 = 0; p0 < K; p0 += kcb) {
    const size_t kc = K - p0 < kcb ? K - p0 : kcb;
    for (size_t j0 = 0; j0 < npad; j0 += nr) {
      float* restrict panel = bp + p0 * npad + j0 * kc;
      const size_t w = N - j0 < nr ? N - j0 : nr;
      for (size_t k = 0; k < kc; ++k) {
        const float* row = b + (p0 + k) * ldb + j0;
        float* restrict dst = panel + k * nr;
        size_t j = 0;
        for (; j < w; ++j) dst[j] = row[j];
        for (; j < nr; ++j) dst[j] = 0.0f;
      }
    }
  }
}

/* a[mc, kc] (row stride lda) -> ap: per panel of mr rows at ap + i0 * kc, kc steps of mr
 * values, zeros past mc. */
static OI_HELPER void oi_mm_pack_a(const float* a, size_t lda, size_t mc, size_t kc, size_t mr,
                                   float* restrict ap) {
  for (size_t i0 = 0; i0 < mc; i0 += mr) {
    float* restrict panel = ap + i0 * kc;
    const size_t h = mc - i0 < mr ? mc - i0 : mr;
    for (size_t r = 0; r < h; ++r) {
      const float* row = a + (i0 + r) * lda;
      for (size_t k = 0; k < kc; ++k) panel[k * mr + r] = row[k];
    }
    for (size_t r = h; r < mr; ++r)
      for (size_t k = 0; k < kc; ++k) panel[k * mr + r] = 0.0f;
  }
}

)C";

const char* const kSimdLoopsC =
    R"C(/* c[M, N] (row stride ldc) = (accumulate ? c : 0) + a[M, K] (row stride lda) x B, B packed
 * by oi_mm_pack_b with (kcb, the kernel's nr) in bp; ap holds mcb x kcb floats. ncb and mcb
 * are multiples of the kernel's nr and mr. */
static OI_HELPER void oi_mm_gemm(int isa, size_t M, size_t N, size_t K, const float* a, size_t lda,
                                 const float* bp, float* c, size_t ldc, float* ap, size_t kcb,
                                 size_t mcb, size_t ncb, int accumulate) {
  const size_t mr = isa == 2 ? @MR5@ : @MR2@, nr = isa == 2 ? @NR5@ : @NR2@;
  const size_t npad = (N + nr - 1) / nr * nr;
  for (size_t jc = 0; jc < N; jc += ncb) {
    const size_t nc = N - jc < ncb ? N - jc : ncb;
    for (size_t p0 = 0; p0 < K; p0 += kcb) {
      const size_t kc = K - p0 < kcb ? K - p0 : kcb;
      const float* block = bp + p0 * npad;
      for (size_t ic = 0; ic < M; ic += mcb) {
        const size_t mc = M - ic < mcb ? M - ic : mcb;
        oi_mm_pack_a(a + ic * lda + p0, lda, mc, kc, mr, ap);
        for (size_t jr = 0; jr < nc; jr += nr) {
          const size_t w = nc - jr < nr ? nc - jr : nr;
          const float* panel = block + (jc + jr) * kc;
          for (size_t ir = 0; ir < mc; ir += mr) {
            const size_t h = mc - ir < mr ? mc - ir : mr;
            float* tile = c + (ic + ir) * ldc + jc + jr;
            const int first = p0 == 0 && !accumulate;
@KERNEL_CALL@          }
        }
      }
    }
  }
}

/* a[M, K] (row stride lda) packed whole, once, for oi_mm_gemm_pa: per block of kcb depth steps
 * (the last may be shorter) at ap + p0 * mpad, mpad = M rounded up to mr, the block's rows
 * packed by oi_mm_pack_a (panel i0 at + i0 * kc). Constant weights: conv's w. */
static OI_HELPER void oi_mm_pack_a_all(const float* a, size_t lda, size_t M, size_t K, size_t kcb,
                                       size_t mr, float* restrict ap) {
  const size_t mpad = (M + mr - 1) / mr * mr;
  for (size_t p0 = 0; p0 < K; p0 += kcb)
    oi_mm_pack_a(a + p0, lda, M, K - p0 < kcb ? K - p0 : kcb, mr, ap + p0 * mpad);
}

/* c[M, N] (row stride ldc) = A x B, A packed whole by oi_mm_pack_a_all and B by oi_mm_pack_b,
 * both with (kcb, the kernel's mr and nr): oi_mm_gemm's loops without packing. */
static OI_HELPER void oi_mm_gemm_pa(int isa, size_t M, size_t N, size_t K, const float* ap,
                                    const float* bp, float* c, size_t ldc, size_t kcb, size_t mcb) {
  const size_t mr = isa == 2 ? @MR5@ : @MR2@, nr = isa == 2 ? @NR5@ : @NR2@;
  const size_t npad = (N + nr - 1) / nr * nr, mpad = (M + mr - 1) / mr * mr;
  for (size_t p0 = 0; p0 < K; p0 += kcb) {
    const size_t kc = K - p0 < kcb ? K - p0 : kcb;
    const float* block = bp + p0 * npad;
    for (size_t ic = 0; ic < M; ic += mcb) {
      const size_t mc = M - ic < mcb ? M - ic : mcb;
      const float* apb = ap + p0 * mpad + ic * kc;
      for (size_t jr = 0; jr < N; jr += nr) {
        const size_t w = N - jr < nr ? N - jr : nr;
        const float* panel = block + jr * kc;
        for (size_t ir = 0; ir < mc; ir += mr) {
          const size_t h = mc - ir < mr ? mc - ir : mr;
          float* tile = c + (ic + ir) * ldc + jr;
          const int first = p0 == 0;
          const float* app = apb + ir * kc;
@KERNEL_CALL_PA@        }
      }
    }
  }
}

/* `count` values into the packed B of oi_mm_pack_b (block of depth step k at bk, kc steps deep,
 * panels of nr columns): columns col .. col + count - 1 of row k get src[j * stride], or zeros
 * where src is NULL. */
static OI_HELPER void oi_mm_b_run(float* bk, size_t kc, size_t nr, size_t col, size_t count,
                                  const float* src, size_t stride) {
  while (count) {
    const size_t lane = col % nr, n = nr - lane < count ? nr - lane : count;
    float* restrict d = bk + col / nr * nr * kc + lane;
    if (!src)
      for (size_t j = 0; j < n; ++j) d[j] = 0.0f;
    else if (stride == 1)
      memcpy(d, src, n * sizeof(float));
    else
      for (size_t j = 0; j < n; ++j) d[j] = src[j * stride];
    if (src) src += n * stride;
    col += n;
    count -= n;
  }
}

/* c[M, N] += a[M, K] x b[K, N] (row-major, M, N, K > 0) with packing buffers of its own, for
 * products whose operands change every call (conv's patch tiles); `blocking`: oi_mm_gemm's
 * {kcb, mcb, ncb} for AVX2, then for AVX-512. 0, c untouched: no kernel allowed here, or no
 * memory; the caller's portable loops run. */
static OI_HELPER int oi_mm_product(int allowed, size_t M, size_t N, size_t K, const float* a,
                                   const float* b, float* c, const size_t blocking[6]) {
  const int isa = oi_mm_isa(allowed);
  if (!isa) return 0;
  const size_t* blk = blocking + (isa == 2 ? 3 : 0);
  const size_t mr = isa == 2 ? @MR5@ : @MR2@, nr = isa == 2 ? @NR5@ : @NR2@;
  const size_t kc = K < blk[0] ? K : blk[0], rows = (M + mr - 1) / mr * mr;
  const size_t mc = rows < blk[1] ? rows : blk[1];
  void* bm = malloc(K * ((N + nr - 1) / nr * nr) * sizeof(float) + 64u);
  void* am = malloc(mc * kc * sizeof(float) + 64u);
  const int ok = bm && am;
  if (ok) {
    float* bp = oi_mm_align(bm);
    oi_mm_pack_b(b, N, K, N, blk[0], nr, bp);
    oi_mm_gemm(isa, M, N, K, a, K, bp, c, N, oi_mm_align(am), blk[0], blk[1], blk[2], 1);
  }
  free(bm);
  free(am);
  return ok;
}
#endif

)C";

uint64_t round_down(uint64_t v, uint64_t m) {
  return std::max<uint64_t>(v / m, 1) * m;
}
uint64_t round_up(uint64_t v, uint64_t m) {
  return (v + m - 1) / m * m;
}

// KC: the B micro-panel (KC x NR) as large as L1 (A's micro-panels stream through it from L2;
// on a Zen 4 core, 64x1024x1024 ran 5% faster so than with half of L1); MC: the packed A block
// in half of L2; NC: the B block in half of L3.
SimdBlocking blocking(const Isa& s, const MatmulDevice& d) {
  const uint64_t nr = s.lanes * s.vectors;
  const uint64_t kc = std::clamp<uint64_t>(d.l1d_bytes / (nr * 4), 64, 1024) / 8 * 8;
  const uint64_t mc = round_down(std::min<uint64_t>(d.l2_bytes / 2 / (kc * 4), 4096), s.mr);
  const uint64_t nc = round_down(std::min<uint64_t>(d.l3_bytes / 2 / (kc * 4), 1 << 16), nr);
  return {s.mr, nr, kc, mc, nc};
}

uint64_t number(const boost::json::object& o, const char* key, uint64_t fallback) {
  const auto* v = o.if_contains(key);
  return v && v->is_number() ? v->to_number<uint64_t>() : fallback;
}

}  // namespace

MatmulDevice matmul_device(const boost::json::object* plan_device) {
  MatmulDevice d;
  // The freestanding profile allocates nothing: no packed panels, the portable loops.
  if (emit_profile().freestanding) return {false, false, d.l1d_bytes, d.l2_bytes, d.l3_bytes};
  if (!plan_device) return d;
  if (const auto* type = plan_device->if_contains("type");
      type && type->is_string() && type->as_string() != "cpu")
    return {false, false, d.l1d_bytes, d.l2_bytes, d.l3_bytes};
  if (const auto* mem = plan_device->if_contains("memory"); mem && mem->is_object()) {
    d.l1d_bytes = std::max<uint64_t>(number(mem->as_object(), "l1d_bytes", d.l1d_bytes), 4096);
    d.l2_bytes = std::max<uint64_t>(number(mem->as_object(), "l2_bytes", d.l2_bytes), 65536);
    d.l3_bytes = std::max<uint64_t>(number(mem->as_object(), "l3_bytes", d.l3_bytes), d.l2_bytes);
  }
  // The target's built-in description (no --device): its SIMD list is a baseline, not a limit;
  // every micro-kernel is emitted and the CPU running the code picks, as without a device.
  if (const auto* builtin = plan_device->if_contains("builtin");
      builtin && builtin->is_bool() && builtin->as_bool())
    return d;
  const auto* cpu = plan_device->if_contains("cpu");
  if (!cpu || !cpu->is_object()) return d;
  const auto& o = cpu->as_object();
  const auto* isa = o.if_contains("isa");
  const auto* simd = o.if_contains("simd");
  auto has = [&](const char* feature) {
    if (!simd || !simd->is_array()) return false;
    for (const auto& f : simd->as_array())
      if (f.is_string() && f.as_string() == feature) return true;
    return false;
  };
  const bool x86 = isa && isa->is_string() && isa->as_string() == "x86-64";
  d.avx2 = x86 && has("avx2") && has("fma");
  d.avx512 = x86 && has("avx512f");
  return d;
}

SimdBlocking avx2_blocking(const MatmulDevice& d) {
  return blocking(kAvx2, d);
}
SimdBlocking avx512_blocking(const MatmulDevice& d) {
  return blocking(kAvx512, d);
}

std::string matmul_simd_helpers_c(const MatmulDevice& d) {
  if (!d.avx2 && !d.avx512) return "";  // OI_MM_X86 stays undefined: the portable loops run
  const std::string call = "(kc, ap + ir * kc, panel, tile, ldc, first, h, w);\n";
  std::string dispatch;
  if (d.avx2 && d.avx512)
    dispatch = "            if (isa == 2)\n              oi_mm_kernel_avx512" + call +
               "            else\n              oi_mm_kernel_avx2" + call;
  else
    dispatch = std::string("            oi_mm_kernel_") + (d.avx512 ? "avx512" : "avx2") + call;
  std::string text = std::string(kSimdSupportC) + (d.avx2 ? micro_kernel(kAvx2) : "") +
                     (d.avx512 ? micro_kernel(kAvx512) : "") + kSimdLoopsC;
  std::string dispatch_pa;
  const std::string call_pa = "(kc, app, panel, tile, ldc, first, h, w);\n";
  if (d.avx2 && d.avx512)
    dispatch_pa = "          if (isa == 2)\n            oi_mm_kernel_avx512" + call_pa +
                  "          else\n            oi_mm_kernel_avx2" + call_pa;
  else
    dispatch_pa = std::string("          oi_mm_kernel_") + (d.avx512 ? "avx512" : "avx2") + call_pa;
  for (auto [key, v] : {std::pair<const char*, std::string>{"@MR2@", u(kAvx2.mr)},
                        {"@NR2@", u(kAvx2.lanes * kAvx2.vectors)},
                        {"@MR5@", u(kAvx512.mr)},
                        {"@NR5@", u(kAvx512.lanes * kAvx512.vectors)},
                        {"@EMITTED@", std::to_string((d.avx2 ? 1 : 0) | (d.avx512 ? 2 : 0))},
                        {"@KERNEL_CALL_PA@", dispatch_pa},
                        {"@KERNEL_CALL@", dispatch}})
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + v.size()))
      text.replace(at, std::string(key).size(), v);
  return text;
}

bool simd_product_applies(const SimdProduct& p, const MatmulDevice& d) {
  // Below 4 rows or columns most of each register tile would be padding.
  return (d.avx2 || d.avx512) && p.M >= 4 && p.N >= 4 && p.K > 0;
}

void emit_simd_product(KernelEnv& env, std::ostringstream& c, const SimdProduct& p,
                       const MatmulDevice& d, const std::function<void()>& portable) {
  const SimdBlocking b2 = avx2_blocking(d), b5 = avx512_blocking(d);
  // Buffers for whichever kernel runs: the packed B whole, one packed A block; 64 bytes more
  // for alignment.
  uint64_t b_floats = 0, a_floats = 0;
  for (const SimdBlocking* b : {d.avx2 ? &b2 : nullptr, d.avx512 ? &b5 : nullptr}) {
    if (!b) continue;
    b_floats = std::max(b_floats, p.K * round_up(p.N, b->nr));
    a_floats = std::max(a_floats, std::min(b->mc, round_up(p.M, b->mr)) * std::min(b->kc, p.K));
  }
  const std::string bp = env.scratch(b_floats * 4 + 64), ap = env.scratch(a_floats * 4 + 64);
  const std::string flag = p.b_constant ? env.state_flag() : "";
  const int allowed = (d.avx2 ? 1 : 0) | (d.avx512 ? 2 : 0);
  auto pick = [](const char* what, uint64_t v2, uint64_t v5) {
    return std::string(what) + " = mm_isa == 2 ? " + u(v5) + " : " + u(v2);
  };
  c << "#ifdef OI_MM_X86\n"
    << "  const int mm_isa = oi_mm_isa(" << allowed << ");\n"
    << "  if (mm_isa) {\n"
    << "    float* mm_bp = oi_mm_align(s->" << bp << ");\n"
    << "    const size_t " << pick("mm_kc", b2.kc, b5.kc) << ", " << pick("mm_mc", b2.mc, b5.mc)
    << ", " << pick("mm_nc", b2.nc, b5.nc) << ";\n";
  const std::string pack = "oi_mm_pack_b(" + p.b + ", " + u(p.N) + ", " + u(p.K) + ", " + u(p.N) +
                           ", mm_kc, mm_isa == 2 ? " + u(b5.nr) + " : " + u(b2.nr) + ", mm_bp);\n";
  if (p.b_constant)
    c << "    if (!s->" << flag << ") {\n      " << pack << "      s->" << flag << " = 1;\n    }\n";
  else
    c << "    " << pack;
  c << "    oi_mm_gemm(mm_isa, " << u(p.M) << ", " << u(p.N) << ", " << u(p.K) << ", " << p.a
    << ", " << u(p.K) << ", mm_bp, acc, " << u(p.N) << ", oi_mm_align(s->" << ap
    << "), mm_kc, mm_mc, mm_nc, 0);\n"
    << "  } else\n#endif\n  {\n";
  portable();
  c << "  }\n";
}

void emit_simd_product_unpacked(std::ostringstream& c, const SimdProduct& p, const MatmulDevice& d,
                                const std::function<void()>& portable) {
  const SimdBlocking b2 = avx2_blocking(d), b5 = avx512_blocking(d);
  const int allowed = (d.avx2 ? 1 : 0) | (d.avx512 ? 2 : 0);
  c << "{\n#ifdef OI_MM_X86\n  static const size_t mm_blocking[6] = {" << u(b2.kc) << ", "
    << u(b2.mc) << ", " << u(b2.nc) << ", " << u(b5.kc) << ", " << u(b5.mc) << ", " << u(b5.nc)
    << "};\n"
    << "  if (!oi_mm_product(" << allowed << ", " << u(p.M) << ", " << u(p.N) << ", " << u(p.K)
    << ", " << p.a << ", " << p.b << ", acc, mm_blocking))\n#endif\n  {\n";
  portable();
  c << "  }\n}\n";
}

}  // namespace oi::c_emitter
