// matmul f32: [..., M, K] x [..., K, N] -> [..., M, N] with numpy batch broadcasting (ops.md).
// Two shaders: shaders/matmul_gemv.comp for M <= 4 (decoding: reading B is the cost) and
// shaders/matmul_tiled.comp, whose tile sizes are specialization constants picked here per
// shape (big tiles only where they still fill the GPU). Dot products accumulate in f32 in tile
// order (within the matmul tolerance of ops.md). In place, tiles would overwrite operands still
// read: the same dispatch then writes a scratch buffer that is copied over the output
// (run_matmul, matmul_generic.cpp), so in-place results equal normal ones bit for bit. The
// other dtypes are in matmul_generic.cpp.
//
// Subnormal operands on devices that may flush them (no DenormPreserve: NVIDIA's, lavapipe):
// matmul_tiled.comp's per-slice bookkeeping of them costs every call, so the tiled path there is
// three dispatches: the fast pass (built without the bookkeeping) computes, and alongside it (no
// barrier between them: the scan only reads A and B and writes the flag, which the fast pass
// never reads) matmul_scan.comp sets a flag (a zeroed 8-byte buffer) when A or B holds a
// subnormal; then the careful pass (with the bookkeeping) computes every output again, over the
// fast pass's, only if the flag is set. The scan's workgroups fill the SMs the fast pass's last
// wave leaves idle instead of running before it. OPENINFER_VULKAN_MATMUL_OVERLAP=0 runs the scan
// first, with a barrier after it (for comparison). Where the device keeps subnormals it is
// one dispatch of matmul_f32 (its _fc variant has no bookkeeping).
// OPENINFER_VULKAN_MATMUL_SUBNORMALS=inline runs the careful shader alone (one pass, the
// bookkeeping in every slice; the earlier form, for comparison).
//
// Tuning without rebuilding: OPENINFER_VULKAN_MATMUL_TILE=BM,BN,BK,TM,TN forces the tiled shader
// with that tile for every shape (M <= 4 too), OPENINFER_VULKAN_MATMUL_GEMV=COLS,WG,UNROLL sets
// the GEMV split (tests/vulkan/vulkan_bench compares them).
#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>

#include "elementwise.hpp"
#include "matmul_shared.hpp"
#include "openinfer/plugin_abi.hpp"
#include "tuning_env.hpp"

namespace oi::vulkan {
namespace {

// matmul_tiled.comp's constants: a BM x BN output tile, BK-deep K slices, TM x TN outputs per
// invocation.
struct Tile {
  uint32_t bm, bn, bk, tm, tn;
  uint32_t invocations() const { return (bm / tm) * (bn / tn); }
};

// matmul_gemv.comp's constants: COLS columns a workgroup of WG invocations, UNROLL rows of B
// read at once by each.
struct GemvSplit {
  uint32_t cols, wg, unroll;
};

// Shared memory of each: 16, 12 and 17 KiB (double buffered). kLarge, on an H200 (2026-11-28,
// bench/vulkan_gpu_tune.sh; the fast pass with 16-byte loads; bench/README.md): 42.4 TFLOP/s at
// 4096^3 and 37.7 at 2048^3, against 42.1 / 37.6 for 128x128 with 8x8 an invocation (256
// invocations, the earlier default), 40.7 / 36.2 for 128x256 with 8x16 and 40.5 / 35.7 for
// 256x128 with 16x8; with scalar loads all of them gave 35-37 at 4096^3.
constexpr Tile kLarge{128, 128, 8, 16, 8};  // 128 outputs an invocation, 128 invocations
constexpr Tile kWide{128, 64, 8, 8, 4};     // half the tiles' size: twice as many workgroups
constexpr Tile kSmall{64, 64, 16, 4, 4};    // small matrices: many workgroups
constexpr uint32_t kGemvWg = 1024, kGemvUnroll = 8;
constexpr uint32_t kGemvMaxRows = 4;
// Workgroups a dispatch needs before bigger tiles pay: about one per SM of a large GPU (an
// H100 has 132; measured there: 2048^3 runs faster on 256 128x128 tiles than on 512 128x64).
constexpr uint64_t kFillGroups = 128;
// The GEMV wants two 1024-invocation workgroups per SM.
constexpr uint64_t kGemvFillGroups = 256;
constexpr uint32_t kMaxSharedBytes = 48 * 1024;  // what NVIDIA and most desktop GPUs give

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

[[noreturn]] void bad_setting(const char* name, const std::string& why) {
  bad_tuning("matmul", name, why);
}

// The tile forced by OPENINFER_VULKAN_MATMUL_TILE, checked against the shader's assumptions.
bool forced_tile(Tile& tile) {
  const char* name = "OPENINFER_VULKAN_MATMUL_TILE";
  const char* text = tuning_env(name);
  if (text == nullptr) return false;
  const auto v = parse_tuning_list("matmul", name, text, 5);
  tile = {v[0], v[1], v[2], v[3], v[4]};
  const uint32_t wg =
      tile.tm % 4 == 0 && tile.tn % 4 == 0 && tile.bm % tile.tm == 0 && tile.bn % tile.tn == 0
          ? tile.invocations()
          : 0;
  const uint64_t shared = 2ull * tile.bk * (tile.bm / 4 + 1) * 16 + 2ull * tile.bk * tile.bn * 4;
  if (wg < 32 || wg > 1024 || (tile.bm * tile.bk) % wg != 0 || (tile.bn * tile.bk) % wg != 0 ||
      shared > kMaxSharedBytes) {
    bad_setting(name,
                "is no valid tile (TM, TN multiples of 4 dividing BM, BN; 32..1024 "
                "invocations that split both slices evenly; 48 KiB of shared memory)");
  }
  return true;
}

// The widest column slice (of 32, 16, 8: wider ones measured slower on an H100) that still
// gives every SM two workgroups while each k lane keeps at least 8 rows of B; where none does
// (small N), the narrowest that keeps the 8 rows.
GemvSplit default_gemv_split(uint64_t K, uint64_t N, uint64_t batches) {
  uint32_t pick = 0;
  for (uint32_t cols : {32u, 16u, 8u}) {
    if (kGemvWg / cols * 8 > std::max<uint64_t>(K, 256)) break;  // lanes past K / 8
    pick = cols;
    if (ceil_div(N, cols) * batches >= kGemvFillGroups) break;
  }
  return {pick, kGemvWg, kGemvUnroll};
}

GemvSplit gemv_split(uint64_t K, uint64_t N, uint64_t batches) {
  const char* name = "OPENINFER_VULKAN_MATMUL_GEMV";
  const char* text = tuning_env(name);
  if (text == nullptr) return default_gemv_split(K, N, batches);
  const auto v = parse_tuning_list("matmul", name, text, 3);
  const uint32_t lanes = v[0] <= v[1] && v[1] % v[0] == 0 ? v[1] / v[0] : 0;
  if (v[1] > 1024 || lanes == 0 || (lanes & (lanes - 1)) != 0 || v[2] > 16) {
    bad_setting(name,
                "is no valid split (COLS,WG,UNROLL: WG <= 1024 a power-of-two multiple "
                "of COLS, UNROLL <= 16)");
  }
  return {v[0], v[1], v[2]};
}

// The biggest tile that still gives every SM work; small matrices get the 64 x 64 tile.
Tile pick_tile(uint64_t M, uint64_t N, uint64_t batches) {
  for (const Tile& t : {kLarge, kWide}) {
    if (ceil_div(M, t.bm) * ceil_div(N, t.bn) * batches >= kFillGroups) return t;
  }
  return kSmall;
}

// The grid along M or N: at most 65535 workgroups (the least maxComputeWorkGroupCount Vulkan
// allows); the shaders take the tiles past it round again.
uint32_t grid(uint64_t groups) {
  return static_cast<uint32_t>(std::min<uint64_t>(groups, 65535));
}

// matmul_tiled.comp's VEC4: 16-byte loads where every quad it reads is aligned (K, N and the
// operands' word offsets multiples of 4) and the slices' quads split evenly over the
// invocations; OPENINFER_VULKAN_MATMUL_VEC4=0 keeps the scalar loads and stores (for comparison).
bool scalar_forced() {
  const char* env = tuning_env("OPENINFER_VULKAN_MATMUL_VEC4");
  return env != nullptr && std::string(env) == "0";
}

bool vec4_loads(const Tile& t, uint64_t K, uint64_t N, uint32_t a_off, uint32_t b_off) {
  if (scalar_forced()) return false;
  const uint32_t wg = t.invocations();
  return K % 4 == 0 && N % 4 == 0 && a_off % 4 == 0 && b_off % 4 == 0 && t.bk % 4 == 0 &&
         (t.bm * t.bk / 4) % wg == 0 && (t.bn * t.bk / 4) % wg == 0;
}

// OPENINFER_VULKAN_MATMUL_SUBNORMALS: "scan" (the default) or "inline" (above).
bool inline_subnormals() {
  const char* name = "OPENINFER_VULKAN_MATMUL_SUBNORMALS";
  const char* text = tuning_env(name);
  if (text == nullptr || std::string(text) == "scan") return false;
  if (std::string(text) == "inline") return true;
  bad_setting(name, "is neither scan nor inline");
}

void check(oi_status* status) {
  if (status == nullptr) return;
  const std::string what = host()->status_message ? host()->status_message(status) : "";
  if (host()->status_free) host()->status_free(status);
  throw abi::StatusError(OI_STATUS_INTERNAL, "matmul: " + what);
}

// The tiled dispatch `job` (bindings a, b, y) as scan, fast pass and careful pass (above).
void run_scanned(const oi_kernel_call& call, Dispatch job) {
  oi_buffer* flag = nullptr;
  check(buffer_alloc(call.device, 8, &flag));  // zeroed
  struct Free {
    oi_device* d;
    oi_buffer* b;
    ~Free() { buffer_free(d, b); }  // later commands run after these: reuse is safe at once
  } release{call.device, flag};
  const oi_tensor_desc& a = call.inputs[0];
  const oi_tensor_desc& b = call.inputs[1];
  const uint64_t a_count = abi::element_count(a), b_count = abi::element_count(b);
  constexpr uint64_t kScanPerGroup = 256 * 8;  // matmul_scan.comp: 256 invocations, 8 loads each
  Dispatch scan;
  scan.shader = "matmul_scan";
  scan.params = {word_offset(a), fit32(a_count), word_offset(b), fit32(b_count)};
  scan.buffers = {a.buffer, b.buffer, flag};
  scan.groups = {static_cast<uint32_t>(std::clamp<uint64_t>(
                     ceil_div(std::max(a_count, b_count), kScanPerGroup), 1, 65535)),
                 1, 1};
  job.buffers[3] = flag;
  job.shader = "matmul_f32_fast";
  const char* overlap = tuning_env("OPENINFER_VULKAN_MATMUL_OVERLAP");
  if (overlap != nullptr && std::string(overlap) == "0") {
    run_dispatch(call.device, scan);
    run_dispatch(call.device, job);
  } else {
    job.overlap_next = true;  // the scan runs alongside
    run_dispatch(call.device, job);
    run_dispatch(call.device, scan);
  }
  job.shader = "matmul_f32_careful";
  job.overlap_next = false;
  run_dispatch(call.device, job);
}

void matmul_f32_into(const oi_kernel_call& call) {
  const oi_tensor_desc& a = call.inputs[0];
  const oi_tensor_desc& b = call.inputs[1];
  const oi_tensor_desc& out = call.outputs[0];
  const MatmulShape s = matmul_shape(call);
  const uint64_t M = s.M, K = s.K, N = s.N, batches = s.batches;
  if (M == 0 || N == 0 || batches == 0) return;
  fit32(batches * M * N);
  fit32(M * K * batches);
  fit32(K * N * batches);
  Dispatch job;
  job.float_width = 32;
  job.params = {fit32(M),       fit32(K),       fit32(N),         fit32(batches),
                word_offset(a), word_offset(b), word_offset(out), 0};
  const auto table = batch_table(call, batches);
  job.params.insert(job.params.end(), table.begin(), table.end());
  job.buffers = {a.buffer, b.buffer, out.buffer};
  const uint32_t gz = static_cast<uint32_t>(std::min<uint64_t>(batches, 65535));
  Tile tile{};
  if (!forced_tile(tile) && M <= kGemvMaxRows) {
    const GemvSplit split = gemv_split(K, N, batches);
    job.shader = "matmul_gemv_f32";
    job.spec = {split.cols, split.wg, static_cast<uint32_t>(M), split.unroll};
    job.groups = {grid(ceil_div(N, split.cols)), 1, gz};
  } else {
    if (tile.bm == 0) tile = pick_tile(M, N, batches);
    job.shader = "matmul_f32";
    const bool vec4 = vec4_loads(tile, K, N, job.params[4], job.params[5]);
    // 16-byte stores where N and the output's word offset allow (not with VEC4=0 either).
    const bool vec4_out = N % 4 == 0 && job.params[6] % 4 == 0 && !scalar_forced();
    job.spec = {tile.bm,        tile.bn,           tile.bk, tile.tm, tile.tn, tile.invocations(),
                vec4 ? 1u : 0u, vec4_out ? 1u : 0u};
    job.groups = {grid(ceil_div(N, tile.bn)), grid(ceil_div(M, tile.bm)), gz};
    // matmul_f32 is the fast form where the device keeps subnormals (its _fc variant).
    if (!caps_of(call.device).float_controls32 && !inline_subnormals()) {
      return run_scanned(call, job);
    }
  }
  run_dispatch(call.device, job);
}

oi_status* matmul_f32(const oi_kernel_call* call) {
  OI_ABI_TRY
  run_matmul(*call, &matmul_f32_into);
  OI_ABI_CATCH(call->host)
}

void register_matmul(std::vector<VulkanKernel>& list) {
  for (oi_kernel_mode mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
    list.push_back(
        {"matmul", {OI_DTYPE_F32, OI_DTYPE_F32}, OI_DTYPE_F32, mode, Needs::Nothing, &matmul_f32});
  }
}

const KernelRegistration registration(register_matmul);

}  // namespace
}  // namespace oi::vulkan
