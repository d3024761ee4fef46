// f16 matmul on tensor cores: shaders/matmul_coop.comp, on devices with VK_NV_cooperative_matrix
// (DeviceCaps::coop_m; instance.cpp picks the matrix shape). f16 inputs, products summed in f32
// by the tensor cores, one rounding to f16: within the op rules' bound for f16 (one unit in the
// last place), not the CPU's bits (matmul_generic.comp keeps those where this path is off).
//
// OPENINFER_VULKAN_COOPMAT: unset takes tensor cores for M > 4 (decoding rows keep the generic
// shader's small tiles, which read b once per row without idle matrix lanes); "force" takes them
// for every f16 call, "off" never. OPENINFER_VULKAN_COOPMAT_TILE=BM,BN,BK,WM[,DEPTH] forces a
// tile (DEPTH: slices whose loads are in flight at once, 1..4; default 1);
// BM,BN,BK,WM,DEPTH,SG also sets the subgroups of a workgroup (4, 8, 12 or 16; default 8), and
// BM,BN,BK,WM,DEPTH,SG,STAGES the shared buffers of each operand (1 or 2; default 2).
// OPENINFER_VULKAN_COOPMAT_GROUP=N: tile rows a band of workgroups takes (default 8, 0 none).
// BM,BN,BK,WM,DEPTH,SG,STAGES,EARLY: EARLY subgroups store the next slice before their products
// (STAGES 2). OPENINFER_VULKAN_COOPMAT_LOADERS=G,W (with a forced tile) adds G loader groups of
// W subgroups (STAGES up to 4, a ring). For tuning only: OPENINFER_VULKAN_COOPMAT_PROBE=1..4
// (timing probes, wrong results), OPENINFER_VULKAN_COOPMAT_SHAPE=16x8,
// OPENINFER_VULKAN_COOPMAT_FREE=early (when a multiplying subgroup frees a ring buffer) and
// OPENINFER_VULKAN_COOPMAT_LOADS=l2 (operands read past the L1); none of the last three paid on
// the H200 (docs/vulkan.md).
#include <algorithm>
#include <cstring>
#include <optional>

#include "elementwise.hpp"
#include "matmul_shared.hpp"
#include "openinfer/plugin_abi.hpp"
#include "tuning_env.hpp"

namespace oi::vulkan {
namespace {

// matmul_coop.comp's output tile (BM x BN), k slice (BK), subgroups down the tile (WM), slices
// read ahead into registers (DEPTH), subgroups of 32 invocations in the workgroup (SG) and
// shared buffers of each operand (STAGES: 2, or 1 with two barriers a slice).
struct CoopTile {
  uint32_t bm, bn, bk, wm, depth = 1, sg = 8, stages = 2;
  uint32_t early = 0;  // subgroups that store the next slice before their products (STAGES 2)
  // Loader subgroups besides the SG multiplying ones: groups, subgroups a group (0: none).
  uint32_t loader_groups = 0, loader_warps = 0;
  uint32_t subgroups() const { return sg + loader_groups * loader_warps; }
};
constexpr uint32_t kMaxDepth = 4;

constexpr CoopTile kLargeTile{128, 128, 16, 2};  // H200: 160 TFLOP/s at 4096^3 (BK 32: 147)
constexpr CoopTile kSmallTile{64, 64, 32, 2};
// Eight multiplying subgroups (64 x 64 of the output each) and four loader groups of one
// subgroup filling a ring of three 16-deep slices (four slices in flight). H200
// (docs/vulkan.md, medians of 5-7 interleaved runs): 4096^3 219.7-220.0 TFLOP/s against
// 209.1-209.9 for two groups of two (and 157-159 for kLargeTile), 8192^3 241 against 227-228,
// 2048^3 183-184 against 178-183. Taken from kLoaderGroups of its tiles on (2048^3 has 128).
constexpr CoopTile kLoaderTile{128, 256, 16, 2, 1, 8, 3, 0, 4, 1};
constexpr uint64_t kLoaderGroups = 128;
// H200, 4096^3: 156-161 TFLOP/s with 8 against 155-159 row by row; 128,256,16,2 runs 156 with 8
// and 43 row by row (docs/vulkan.md).
constexpr uint32_t kGroupM = 8;
constexpr uint64_t kFillGroups = 128;  // about an H100's SMs: bigger tiles pay from there on

enum class Policy { Auto, Force, Off };

Policy policy() {
  const char* name = "OPENINFER_VULKAN_COOPMAT";
  const char* text = tuning_env(name);
  if (text == nullptr) return Policy::Auto;
  if (std::strcmp(text, "force") == 0) return Policy::Force;
  if (std::strcmp(text, "off") == 0) return Policy::Off;
  bad_tuning("matmul", name, "is neither 'force' nor 'off'");
}

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

// The shader's assumptions about a tile, for this device's matrix shape.
bool valid_tile(const CoopTile& t, const DeviceCaps& caps) {
  const bool loaders = t.loader_groups != 0;
  if ((t.sg != 4 && t.sg != 8 && t.sg != 12 && t.sg != 16) || t.stages == 0 ||
      t.stages > (loaders ? 4 : 2) || t.early > t.sg || (t.early != 0 && t.stages != 2) ||
      (loaders && (t.loader_warps == 0 || t.early != 0 || t.depth != 1 || t.subgroups() > 32))) {
    return false;
  }
  const uint32_t wn = t.wm == 0 || t.sg % t.wm != 0 ? 0 : t.sg / t.wm;
  const uint64_t invocations = 32ull * (loaders ? t.loader_warps : t.sg);
  if (wn == 0 || t.depth == 0 || t.depth > kMaxDepth || t.bk % caps.coop_k != 0 ||
      t.bm % (t.wm * caps.coop_m) != 0 || t.bn % (wn * caps.coop_n) != 0) {
    return false;
  }
  const uint64_t a_vecs = uint64_t{t.bm} * t.bk / 8, b_vecs = uint64_t{t.bk} * t.bn / 8;
  const uint64_t a_shares = (a_vecs + invocations - 1) / invocations,
                 b_shares = (b_vecs + invocations - 1) / invocations;
  // STAGES slices of each in shared memory, in 16-byte vectors; a's also stage the results.
  const uint64_t a_shared = uint64_t{t.stages} * t.bm * (t.bk + 8) / 8,
                 b_shared = uint64_t{t.stages} * t.bk * (t.bn + 8) / 8;
  const uint64_t staging = uint64_t{t.sg} * caps.coop_m * caps.coop_n / 4;
  // Registers of 16-byte vectors an invocation holds: 8 of each for every invocation, or 32 in
  // all for a loader (whose registers would otherwise lie idle).
  const bool shares_fit = loaders ? a_shares + b_shares <= 32 : a_shares <= 8 && b_shares <= 8;
  return shares_fit && a_vecs > 0 && b_vecs > 0 &&
         16 * (a_shared + b_shared) + 32 <= caps.max_shared_memory && staging <= a_shared;
}

CoopTile pick_tile(const MatmulShape& s, const DeviceCaps& caps) {
  const char* name = "OPENINFER_VULKAN_COOPMAT_TILE";
  if (const char* text = tuning_env(name)) {
    const auto numbers =
        std::clamp<size_t>(std::count(text, text + std::strlen(text), ',') + 1, 4, 8);
    const auto v = parse_tuning_list("matmul", name, text, numbers, 4096,
                                     ": BM,BN,BK,WM[,DEPTH[,SG[,STAGES[,EARLY]]]]");
    CoopTile forced{v[0],
                    v[1],
                    v[2],
                    v[3],
                    numbers > 4 ? v[4] : 1,
                    numbers > 5 ? v[5] : 8,
                    numbers > 6 ? v[6] : 2,
                    numbers > 7 ? v[7] : 0};
    const char* loaders_name = "OPENINFER_VULKAN_COOPMAT_LOADERS";
    if (const char* loaders = tuning_env(loaders_name)) {
      const auto l = parse_tuning_list("matmul", loaders_name, loaders, 2, 16, ": GROUPS,WARPS");
      forced.loader_groups = l[0];
      forced.loader_warps = l[1];
    }
    if (!valid_tile(forced, caps)) {
      bad_tuning("matmul", name,
                 "is no valid tile (SG 4, 8, 12 or 16; STAGES 1 or 2, up to 4 with loaders; EARLY "
                 "up to SG, with STAGES 2; WM divides SG; BM a multiple of WM x " +
                     std::to_string(caps.coop_m) + ", BN of (SG / WM) x " +
                     std::to_string(caps.coop_n) + ", BK of " + std::to_string(caps.coop_k) +
                     "; BM x BK and BK x BN at most 256 x SG x 8, with loaders 32 vectors a loader "
                     "invocation; DEPTH 1.." +
                     std::to_string(kMaxDepth) + "; shared memory within the device's)");
    }
    return forced;
  }
  const auto groups = [&](const CoopTile& t) {
    return ceil_div(s.M, t.bm) * ceil_div(s.N, t.bn) * s.batches;
  };
  if (groups(kLoaderTile) >= kLoaderGroups && valid_tile(kLoaderTile, caps)) return kLoaderTile;
  return groups(kLargeTile) >= kFillGroups && valid_tile(kLargeTile, caps) ? kLargeTile
                                                                           : kSmallTile;
}

// Tile rows a band of workgroups takes in launch order (matmul_coop.comp's GROUP_M; 0 or 1:
// row by row). OPENINFER_VULKAN_COOPMAT_GROUP=N forces it, for tuning.
uint32_t group_m() {
  const char* name = "OPENINFER_VULKAN_COOPMAT_GROUP";
  if (const char* text = tuning_env(name)) {
    if (std::strcmp(text, "0") == 0) return 0;
    return parse_tuning_list("matmul", name, text, 1, 64, ": N, tile rows a band (0: none)")[0];
  }
  return kGroupM;
}

// matmul_coop.comp's PROBE (wrong results, for timing parts of the shader):
// OPENINFER_VULKAN_COOPMAT_PROBE=N, 0 (the default) computes.
uint32_t probe() {
  const char* name = "OPENINFER_VULKAN_COOPMAT_PROBE";
  const char* text = tuning_env(name);
  if (text == nullptr || std::strcmp(text, "0") == 0) return 0;
  return parse_tuning_list("matmul", name, text, 1, 4, ": 1, 2, 3 or 4 (timing probes)")[0];
}

// A tuning variable of two values: false when unset or `off`, true when `on`, else an error
// naming both.
bool either(const char* name, const char* off, const char* on) {
  const char* text = tuning_env(name);
  if (text == nullptr || std::strcmp(text, off) == 0) return false;
  if (std::strcmp(text, on) == 0) return true;
  bad_tuning("matmul", name, std::string("is neither '") + off + "' nor '" + on + "'");
}

// OPENINFER_VULKAN_COOPMAT_SHAPE=16x8 takes 16 x 8 matrices for the products where the device's
// pick is 16 x 16 (NVIDIA reports both), for tuning; unset or 16x16 keeps the pick.
bool narrow_shape() {
  return either("OPENINFER_VULKAN_COOPMAT_SHAPE", "16x16", "16x8");
}

// OPENINFER_VULKAN_COOPMAT_FREE=early: with loaders and BK equal to the matrix depth, a
// multiplying subgroup counts a buffer free once it holds the slice's matrices, before its
// products (matmul_coop.comp's FREE_EARLY); unset or "after": after them. For tuning.
uint32_t free_early() {
  return either("OPENINFER_VULKAN_COOPMAT_FREE", "after", "early");
}

// OPENINFER_VULKAN_COOPMAT_LOADS=l2: aligned operands read as coherent vectors, past the L1
// (matmul_coop.comp's L2_LOADS); unset or "l1": plain reads. For tuning.
uint32_t l2_loads() {
  return either("OPENINFER_VULKAN_COOPMAT_LOADS", "l1", "l2");
}

// The grid along M or N; nullopt past 65535 workgroups (the least maxComputeWorkGroupCount
// Vulkan allows), which matmul_coop.comp's tile order does not go round: the generic shader,
// which does, runs such a matmul.
std::optional<uint32_t> grid(uint64_t size, uint32_t tile) {
  const uint64_t groups = ceil_div(size, tile);
  if (groups > 65535) return std::nullopt;
  return static_cast<uint32_t>(groups);
}

}  // namespace

bool matmul_coop_into(const oi_kernel_call& call, const MatmulShape& s) {
  const oi_tensor_desc& a = call.inputs[0];
  const oi_tensor_desc& b = call.inputs[1];
  const oi_tensor_desc& out = call.outputs[0];
  DeviceCaps narrowed;  // OPENINFER_VULKAN_COOPMAT_SHAPE=16x8: the narrower matrices, for tuning
  const DeviceCaps* device_caps = &caps_of(call.device);
  if (device_caps->coop_n == 16 && narrow_shape()) {
    narrowed = *device_caps;
    narrowed.coop_n = 8;
    device_caps = &narrowed;
  }
  const DeviceCaps& caps = *device_caps;
  if (caps.coop_m == 0 || a.dtype != OI_DTYPE_F16 || b.dtype != OI_DTYPE_F16 ||
      (out.dtype != OI_DTYPE_F16 && out.dtype != OI_DTYPE_F32)) {
    return false;
  }
  const Policy use = policy();
  if (use == Policy::Off || (use == Policy::Auto && s.M <= 4)) return false;
  const CoopTile tile = pick_tile(s, caps);
  if (!valid_tile(tile, caps)) return false;  // a device with too little shared memory
  const std::optional<uint32_t> cols = grid(s.N, tile.bn), rows = grid(s.M, tile.bm);
  if (!cols || !rows) return false;
  const uint32_t a0 = element_start(a), b0 = element_start(b), y0 = element_start(out);
  Dispatch job;
  job.shader = "matmul_coop";
  job.spec = {caps.coop_m,
              caps.coop_n,
              caps.coop_k,
              tile.bm,
              tile.bn,
              tile.bk,
              tile.wm,
              out.dtype == OI_DTYPE_F32 ? 1u : 0u,
              a0 % 8 == 0 && s.K % 8 == 0 ? 1u : 0u,
              b0 % 8 == 0 && s.N % 8 == 0 ? 1u : 0u,
              y0 % 2 == 0 && s.N % 2 == 0 ? 1u : 0u,
              tile.depth,
              32 * tile.subgroups(),
              group_m(),
              tile.stages,
              probe(),
              tile.early,
              tile.loader_groups,
              std::max(tile.loader_warps, 1u),
              free_early(),
              l2_loads()};
  job.params = {fit32(s.outputs(), "an element count"),
                fit32(s.M, "a dimension"),
                fit32(s.K, "a dimension"),
                fit32(s.N, "a dimension"),
                a0,
                b0,
                y0,
                fit32(s.batches, "a batch count")};
  const auto table = batch_table(call, s.batches);
  job.params.insert(job.params.end(), table.begin(), table.end());
  job.buffers = {a.buffer, b.buffer, out.buffer};
  job.groups = {*cols, *rows,
                static_cast<uint32_t>(std::min<uint64_t>(s.batches, 65535))};  // z strides
  run_dispatch(call.device, job);
  return true;
}

}  // namespace oi::vulkan
