// The fast conv paths (conv_fast.hpp): which one a call takes and with which tile.
//
// Implicit GEMM (shaders/conv_gemm.comp): per group, M output channels x P = N*OH*OW pixels
// over K = C/group*KH*KW. Tiles from big to small; the first whose rows are mostly used (M at
// least 3/4 of the tile rows it takes) and that still gives the GPU about one workgroup per SM
// wins; small problems end on the tiles whose KS parts split k, so they still run 256
// invocations a workgroup. Depthwise (shaders/conv_depthwise.comp): TH x TX output tiles of one
// plane, TX 32 for rows up to 32 outputs, else 64 (256 for 1-D: one row), R rows an
// invocation: the most rows that still leave two workgroups per SM.
#include "conv_fast.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "elementwise.hpp"
#include "ew_ops.hpp"
#include "openinfer/plugin_abi.hpp"
#include "tuning_env.hpp"

namespace oi::vulkan {
namespace {

// conv_gemm.comp's constants: a BM x BN output tile, slices of KS * BK values of k, TM x TN
// outputs an invocation, KS parts each multiplying BK of every slice.
struct ConvTile {
  uint32_t bm, bn, bk, tm, tn, ks;
  uint32_t invocations() const { return ks * (bm / tm) * (bn / tn); }
};

// Shared memory of each (double-buffered tiles and k table): 16.5, 25, 12.5, 17, 16.5, 18, 22
// and 28 KiB, inside the 32 KiB of lavapipe and far inside NVIDIA's 48.
// clang-format off
constexpr ConvTile kTiles[] = {
    {128, 128, 8, 8, 8, 1},  // big problems: 64 outputs an invocation
    {128, 64, 16, 8, 4, 1},
    {64, 128, 8, 4, 8, 1},   // 64 output channels over many pixels
    {64, 64, 16, 4, 4, 1},
    {64, 32, 8, 4, 4, 2},    // small problems: two or four parts split k
    {32, 32, 8, 4, 4, 4},
    {16, 64, 8, 4, 4, 4},    // few output channels a group
    {16, 32, 8, 4, 4, 8},    // few pixels, long k (late layers at batch 1): eight parts
};
// clang-format on
// Workgroups before a bigger tile pays: about one per SM of a large GPU (an H100 has 132).
constexpr uint64_t kFillGroups = 128;
// Depthwise: two 256-invocation workgroups per SM.
constexpr uint64_t kDepthwiseFill = 264;
constexpr uint32_t kDepthwiseCells = 6144;  // conv_depthwise.comp's MAX_CELLS and MAX_TAPS
constexpr uint32_t kDepthwiseTaps = 1024;
constexpr uint64_t kMaxSharedBytes = 32 * 1024;  // lavapipe's limit; NVIDIA gives 48 KiB
constexpr uint64_t kMaxGrid = 65535;

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

[[noreturn]] void bad_setting(const char* name, const std::string& why) {
  bad_tuning("conv", name, why);
}

uint64_t shared_bytes(const ConvTile& t) {
  const uint64_t bkt = uint64_t{t.ks} * t.bk;
  const uint64_t tiles = 2 * bkt * (t.bm / 4 + 1) + 2 * bkt * (t.bn / 4);
  const uint64_t sums = t.ks > 1 ? uint64_t{t.ks} * t.bm * t.bn / 4 : 0;
  return 16 * (std::max(tiles, sums) + 2 * bkt);  // and the k table
}

// The shader's assumptions on a tile: whole vec4s, loads that split evenly, a pixel column
// per invocation, the parts' sums storable by all invocations, shared memory within limits.
bool valid_tile(const ConvTile& t) {
  if (t.tm == 0 || t.tn == 0 || t.tm % 4 != 0 || t.tn % 4 != 0 || t.bm % t.tm != 0 ||
      t.bn % t.tn != 0 || t.bk == 0 || t.ks == 0)
    return false;
  const uint64_t wg = t.invocations(), bkt = uint64_t{t.ks} * t.bk;
  return wg >= 32 && wg <= 1024 && wg % t.bn == 0 && (t.bm * bkt) % wg == 0 &&
         (t.bn * bkt) % wg == 0 && (t.ks == 1 || (uint64_t{t.bm} * t.bn) % wg == 0) &&
         shared_bytes(t) <= kMaxSharedBytes;
}

bool forced_tile(ConvTile& tile) {
  const char* name = "OPENINFER_VULKAN_CONV_TILE";
  const char* text = tuning_env(name);
  if (text == nullptr) return false;
  const auto v = parse_tuning_list("conv", name, text, 6, 1024, ": BM,BN,BK,TM,TN,KS");
  tile = {v[0], v[1], v[2], v[3], v[4], v[5]};
  if (!valid_tile(tile)) {
    bad_setting(name,
                "is no valid tile (TM, TN multiples of 4 dividing BM, BN; 32..1024 invocations, "
                "a multiple of BN, that split both slices evenly; 32 KiB of shared memory)");
  }
  return true;
}

ConvTile pick_tile(uint64_t M, uint64_t P, uint64_t K, uint64_t groups) {
  // Rows used of the rows taken: the tiles at the best use (or 3/4 and better) qualify, those
  // that split k only where each part gets at least 4 slices' share (unless none else does).
  auto use = [&](const ConvTile& t) { return double(M) / double(ceil_div(M, t.bm) * t.bm); };
  auto long_enough = [&](const ConvTile& t) { return t.ks == 1 || K >= 4ull * t.ks * t.bk; };
  double best = 0;
  bool any_long = false;
  for (const ConvTile& t : kTiles) best = std::max(best, use(t));
  const double floor = std::min(best, 0.75);
  for (const ConvTile& t : kTiles) any_long = any_long || (use(t) >= floor && long_enough(t));
  const ConvTile* last = nullptr;
  for (const ConvTile& t : kTiles) {
    if (use(t) < floor || (any_long && !long_enough(t))) continue;
    last = &t;
    if (ceil_div(M, t.bm) * ceil_div(P, t.bn) * groups >= kFillGroups) return t;
  }
  return *last;
}

// x = w * q + r without a division in the shader: magic numbers for n < 2^31 (magic 0: w = 1).
void magic_divisor(uint32_t d, uint32_t& magic, uint32_t& shift) {
  if (d <= 1) {
    magic = shift = 0;
    return;
  }
  uint32_t l = 0;
  while ((uint64_t{1} << l) < d) ++l;  // ceil(log2 d)
  magic = static_cast<uint32_t>(((uint64_t{1} << (31 + l)) + d - 1) / d);
  shift = l - 1;
}

// The parameters both conv shaders start with (after the GEMM's P, M, K): the window
// geometry, `per_group` (the GEMM: input channels a group; depthwise: outputs a channel), the
// bias flag and the element offsets of x, w, bias and y.
void append_window(std::vector<uint32_t>& p, const ConvShape& s, uint32_t per_group) {
  p.insert(p.end(), {s.c,  s.h,  s.w,  s.oc, s.oh, s.ow, s.kh,      s.kw,
                     s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, per_group, s.bias ? 1u : 0u,
                     s.x0, s.w0, s.b0, s.y0});
}

Dispatch base_job(const ConvShape& s, const char* shader, const oi_kernel_call& call) {
  Dispatch job;
  job.shader = shader;
  job.float_width = 32;
  job.buffers[0] = call.inputs[0].buffer;
  job.buffers[1] = call.inputs[1].buffer;
  job.buffers[2] = s.bias ? call.inputs[2].buffer : nullptr;
  job.buffers[3] = call.outputs[0].buffer;
  job.output = 3;
  return job;
}

bool run_gemm(const oi_kernel_call& call, const ConvShape& s) {
  const uint64_t cg = s.c / s.group, M = s.oc / s.group;
  const uint64_t P = uint64_t{s.n} * s.oh * s.ow, K = cg * s.kh * s.kw;
  // Word indices stay below 2^31 (fit32 checked the tensors); k and the pixel too.
  if (P >= (uint64_t{1} << 31) || K >= (uint64_t{1} << 31) || s.group > kMaxGrid) return false;
  ConvTile tile{};
  if (!forced_tile(tile)) tile = pick_tile(M, P, K, s.group);
  const uint64_t gx = ceil_div(P, tile.bn), gy = ceil_div(M, tile.bm);
  if (gx > kMaxGrid || gy > kMaxGrid) return false;
  Dispatch job = base_job(s, "conv_gemm", call);
  job.spec = {tile.bm,
              tile.bn,
              tile.bk,
              tile.tm,
              tile.tn,
              tile.ks,
              tile.invocations(),
              static_cast<uint32_t>(wide_dtype_code(s.dtype))};
  uint32_t magic_taps = 0, shift_taps = 0, magic_kw = 0, shift_kw = 0;
  magic_divisor(s.kh * s.kw, magic_taps, shift_taps);
  magic_divisor(s.kw, magic_kw, shift_kw);
  job.params = {static_cast<uint32_t>(P), static_cast<uint32_t>(M), static_cast<uint32_t>(K)};
  append_window(job.params, s, static_cast<uint32_t>(cg));
  job.params.insert(job.params.end(), {magic_taps, shift_taps, magic_kw, shift_kw});
  job.groups = {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), s.group};
  run_dispatch(call.device, job);
  return true;
}

bool run_depthwise(const oi_kernel_call& call, const ConvShape& s) {
  if (s.c != s.group || s.kh * s.kw > kDepthwiseTaps || s.oc > kMaxGrid || s.n > kMaxGrid)
    return false;
  const uint32_t tx = s.oh == 1 ? 256 : s.ow <= 32 ? 32 : 64, ty = 256 / tx;  // 1-D: one row
  const uint64_t cols = uint64_t{tx - 1} * s.sw + uint64_t{s.kw - 1} * s.dw + 1;
  const uint64_t tiles_w = ceil_div(s.ow, tx);
  uint32_t pick = 0;
  uint64_t pick_rows = 0, pick_tiles = 0;
  for (uint32_t r : {4u, 2u, 1u}) {
    const uint64_t rows = uint64_t{ty * r - 1} * s.sh + uint64_t{s.kh - 1} * s.dh + 1;
    const uint64_t tiles = tiles_w * ceil_div(s.oh, uint64_t{ty} * r);
    // (a tile of half the rows already covering the plane: fewer rows do as well)
    if (rows * cols > kDepthwiseCells || tiles > kMaxGrid || (r > 1 && ty * r / 2 >= s.oh))
      continue;
    pick = r;
    pick_rows = rows;
    pick_tiles = tiles;
    if (tiles * s.oc * s.n >= kDepthwiseFill) break;
  }
  if (pick == 0) return false;
  Dispatch job = base_job(s, "conv_depthwise", call);
  job.spec = {tx, pick, static_cast<uint32_t>(wide_dtype_code(s.dtype))};
  append_window(job.params, s, s.oc / s.group);
  job.params.insert(job.params.end(),
                    {static_cast<uint32_t>(pick_rows), static_cast<uint32_t>(cols),
                     static_cast<uint32_t>(tiles_w)});
  job.groups = {static_cast<uint32_t>(pick_tiles), s.oc, s.n};
  run_dispatch(call.device, job);
  return true;
}

}  // namespace

bool run_conv_fast(const oi_kernel_call& call, const ConvShape& s) {
  const uint32_t t = s.dtype;
  if (t != OI_DTYPE_F32 && t != OI_DTYPE_F16 && t != OI_DTYPE_BF16 && t != OI_DTYPE_F8)
    return false;
  const char* forced = tuning_env("OPENINFER_VULKAN_CONV_PATH");
  const std::string path = forced != nullptr ? forced : "";
  // Every tile stays within 32 KiB of shared memory; a device with less keeps spatial.comp.
  if (path == "general" || caps_of(call.device).max_shared_memory < kMaxSharedBytes) return false;
  if (!path.empty() && path != "gemm" && path != "auto") {
    bad_setting("OPENINFER_VULKAN_CONV_PATH", "must be general, gemm or auto");
  }
  if (path != "gemm" && run_depthwise(call, s)) return true;
  return run_gemm(call, s);
}

}  // namespace oi::vulkan
