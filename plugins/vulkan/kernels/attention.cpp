// attention(q, k, v[, mask]) of ops-nn.md. Four shaders:
// - shaders/attention_coop.comp (f16, many query rows, no mask, D and Dv multiples of 16 up to
//   128, where the device has VK_NV_cooperative_matrix): the flash scheme below on tensor cores,
//   QK^T and PV as cooperative matrices (P in two f16 parts), the softmax in f32;
// - shaders/attention_flash.comp (many query rows, prefill): FlashAttention-2 style blocks of
//   query rows against shared-memory tiles of K and V;
// - shaders/attention_split.comp + attention_combine.comp (few query rows, decode): the keys
//   split in chunks over many workgroups, the chunks' partial softmax sums merged by a second
//   dispatch (skipped when one chunk suffices);
// - shaders/attention.comp for everything else: f64 (the attention_f64 variant), an f64 mask
//   (attention_m64: rounded to f32), head dims above 128 (up to 1024), no keys or D = 0, and
//   devices whose subgroups are narrower than 8 lanes.
// All take q, k, v of f32, f16, bf16 or f8 computed in f32; the mask f32/f16/bf16/f8 (added) or
// bool (false = masked); `scale` (default 1/sqrt(D)) and `causal`. Leading dims broadcast (one
// k/v head serving many q heads): the host lists each output batch's element offsets into q, k,
// v and the mask.
//
// Tuning and testing without rebuilding: OPENINFER_VULKAN_ATTENTION=general|flash|split|coop
// forces a path wherever the fast paths apply (coop: where its shapes fit and the device has
// tensor cores, else a warning once and the usual choice); OPENINFER_VULKAN_COOPMAT=off never
// takes tensor cores, =force takes them for f16 calls of any row count;
// OPENINFER_VULKAN_ATTENTION_COOP_TILE=SG,BK sets attention_coop's tile;
// OPENINFER_VULKAN_ATTENTION_CHUNK=KEYS (a multiple of 16, 16..256) sets the split's chunk;
// OPENINFER_VULKAN_ATTENTION_WIDE=off keeps the split's f16/bf16 K and V loads at 8 bytes;
// OPENINFER_VULKAN_ATTENTION_TILE=WG,BK (WG 128 or 256 invocations, BQ = WG / 4 query rows; BK keys
// a tile, 8..64) sets the flash tile.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <sstream>
#include <string>

#include <vulkan/vulkan_core.h>

#include "elementwise.hpp"
#include "ew_ops.hpp"
#include "openinfer/broadcast.hpp"
#include "openinfer/plugin_abi.hpp"
#include "tuning_env.hpp"

namespace oi::vulkan {
namespace {

constexpr uint64_t kMaxHeadDim = 1024;     // MAX_D of attention.comp
constexpr uint64_t kMaxFastHeadDim = 128;  // D and Dv of the fast paths (registers)
constexpr uint32_t kNoMask = 99, kMaskF64 = 10;
// Query rows up to which the split (decode) path beats the flash one: it reads K and V once per
// row, the flash path once per block of rows.
constexpr uint64_t kSplitMaxRows = 4;
// Workgroups a split dispatch wants: about four per SM of a large GPU (an H100 has 132).
constexpr uint64_t kSplitFillGroups = 512;
// Flash blocks of 64 rows (256 invocations) once they give every SM of such a GPU a few.
constexpr uint64_t kFlashWideGroups = 528;
// What every device gives (lavapipe: 32 KiB; NVIDIA 48 KiB): the flash tiles stay within it.
constexpr uint64_t kSharedBytes = 32 * 1024;
constexpr uint32_t kSplitLanes = 8, kSplitSlots = 16;  // attention_split.comp's key groups
// attention_coop.comp: subgroups a workgroup (16 query rows each) and keys a tile.
struct CoopTile {
  uint64_t subgroups = 4, keys = 32;
};

enum class Path { General, Flash, Split, Coop };

[[noreturn]] void fail(oi_status_code code, const std::string& why) {
  throw abi::StatusError(code, "attention: " + why);
}

uint32_t element_index(const oi_tensor_desc& t) {
  const uint32_t size = dtype_bytes(t.dtype);
  if (t.byte_offset % size != 0)
    fail(OI_STATUS_DECLINED, "byte offsets must be multiples of the element size");
  return fit32(t.byte_offset / size);
}

// Element strides of `t`'s dims against `shape` (right-aligned; 0 where t broadcasts).
std::vector<uint64_t> strides_against(const oi_tensor_desc& t, const std::vector<uint64_t>& shape) {
  return geometry::broadcast_strides(std::span<const uint64_t>(t.dims, t.rank), shape);
}

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}
uint64_t round_up(uint64_t a, uint64_t b) {
  return ceil_div(a, b) * b;
}

[[noreturn]] void bad_setting(const char* name, const std::string& why) {
  bad_tuning("attention", name, why);
}

// The shape of a call and what the dispatches share.
struct Shape {
  uint64_t Tq = 0, Tk = 0, D = 0, Dv = 0, batches = 1;
  uint32_t mask_code = kNoMask;
  bool f64 = false;
  bool aligned4 = false;  // every q/k/v matrix starts on a multiple of 4 elements
  bool aligned8 = false;  // ... of 8 elements, and y on an even one (attention_coop.comp)
  bool qkv8 = false;      // every q/k/v matrix starts on a multiple of 8 elements
  uint32_t dtype = 0;
  uint64_t rows() const { return Tq * batches; }
};

enum class CoopPolicy { Auto, Force, Off };

// A forced tensor-core path that cannot run: said once a process, then the usual path runs.
void warn_once(const char* why) {
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  const std::string text =
      std::string("attention: tensor-core path (attention_coop) skipped: ") + why;
  abi::log(host(), OI_LOG_WARNING, text.c_str());
}

// Whether attention_coop.comp takes a call, and why not.
struct CoopUse {
  bool fits = false;
  CoopPolicy policy = CoopPolicy::Auto;
  const char* why = "";
};

CoopPolicy coop_policy() {
  const char* name = "OPENINFER_VULKAN_COOPMAT";
  const char* text = tuning_env(name);
  if (text == nullptr) return CoopPolicy::Auto;
  if (std::strcmp(text, "force") == 0) return CoopPolicy::Force;
  if (std::strcmp(text, "off") == 0) return CoopPolicy::Off;
  bad_setting(name, "is neither 'force' nor 'off'");
}

// attention_coop.comp's shared memory for a tile (its layout: K and V rows, per subgroup the
// scores, the weights' two parts, the row factors; the row-number table).
uint64_t coop_shared_bytes(const Shape& s, const CoopTile& t) {
  const uint64_t ds = std::max(s.D, s.Dv) / 8 + 1;
  return 2 * t.keys * ds * 16 + t.subgroups * 16 * (t.keys + 4) * 4 +
         t.subgroups * 2 * 16 * (t.keys / 8 + 1) * 16 + t.subgroups * 16 * 4 + 16 * 16 * 4;
}

// OPENINFER_VULKAN_ATTENTION_COOP_TILE=SG,BK: SG subgroups (1, 2 or 4; 16 query rows each), BK
// keys a tile (16, 32 or 64; 2 BK >= 16 SG, where Q is staged).
CoopTile coop_tile() {
  CoopTile t;
  const char* name = "OPENINFER_VULKAN_ATTENTION_COOP_TILE";
  if (const char* text = tuning_env(name)) {
    const auto v = parse_tuning_list("attention", name, text, 2);
    t = {v[0], v[1]};
    if ((t.subgroups != 1 && t.subgroups != 2 && t.subgroups != 4) ||
        (t.keys != 16 && t.keys != 32 && t.keys != 64) || 2 * t.keys < 16 * t.subgroups) {
      bad_setting(name, "is no valid tile (SG 1, 2 or 4; BK 16, 32 or 64; 2 BK >= 16 SG)");
    }
  }
  return t;
}

CoopUse coop_use(const Shape& s, const DeviceCaps& caps) {
  CoopUse use;
  use.policy = coop_policy();
  if (use.policy == CoopPolicy::Off) {
    use.why = "OPENINFER_VULKAN_COOPMAT=off";
  } else if (caps.coop_m == 0) {
    use.why = "the device has no tensor cores through VK_NV_cooperative_matrix";
  } else if (s.dtype != OI_DTYPE_F16 || s.mask_code != kNoMask) {
    use.why = "it takes f16 q, k, v without a mask";
  } else if (s.D % 16 != 0 || s.Dv % 16 != 0 || s.D > 128 || s.Dv > 128) {
    use.why = "it takes head dims that are multiples of 16 up to 128";
  } else if (!s.aligned8) {
    use.why = "it takes q, k, v matrices starting on 8 elements and y on an even one";
  } else if (coop_shared_bytes(s, coop_tile()) > caps.max_shared_memory) {
    use.why = "the device has too little shared memory for it";
  } else {
    use.fits = true;
  }
  return use;
}

Path pick_path(const Shape& s, const oi_device* device) {
  const DeviceCaps& caps = caps_of(device);
  const uint32_t lanes = caps.subgroup_size;
  // The fast shaders use basic, vote, arithmetic and shuffle subgroup operations and up to
  // 32 KiB of shared memory.
  const uint32_t ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
                       VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  const bool device_ok = (caps.subgroup_ops & ops) == ops && caps.max_shared_memory >= 32768;
  const bool fast = device_ok && !s.f64 && s.mask_code != kMaskF64 && s.D >= 1 &&
                    s.D <= kMaxFastHeadDim && s.Dv <= kMaxFastHeadDim && s.Tk >= 1 &&
                    lanes >= kSplitLanes && lanes <= 128 && std::has_single_bit(lanes);
  if (!fast) return Path::General;
  const Path usual = s.Tq <= kSplitMaxRows ? Path::Split : Path::Flash;
  const CoopUse coop = coop_use(s, caps);
  if (const char* forced = tuning_env("OPENINFER_VULKAN_ATTENTION")) {
    const std::string name = forced;
    if (name == "general") return Path::General;
    if (name == "flash") return Path::Flash;
    if (name == "split") return Path::Split;
    if (name == "coop") {
      if (coop.fits) return Path::Coop;
      warn_once(coop.why);
      return usual;
    }
    bad_setting("OPENINFER_VULKAN_ATTENTION", "is not general, flash, split or coop");
  }
  if (coop.fits && (coop.policy == CoopPolicy::Force || s.Tq > kSplitMaxRows)) return Path::Coop;
  if (coop.policy == CoopPolicy::Force && caps.coop_m == 0) warn_once(coop.why);
  return usual;
}

// Every row start on 4 elements: the fast shaders load a quad at once (VEC4: 16 bytes of f32,
// 8 of f16 or bf16).
uint32_t vec4_loads(const Shape& s, uint32_t dtype) {
  const bool wide = dtype == OI_DTYPE_F32 || dtype == OI_DTYPE_F16 || dtype == OI_DTYPE_BF16;
  return wide && s.aligned4 && s.D % 4 == 0 && s.Dv % 4 == 0 ? 1 : 0;
}

void run_flash(const oi_kernel_call& call, const Shape& s, Dispatch job) {
  uint32_t wg = 128, bk = 32;
  if (ceil_div(s.Tq, 64) * s.batches >= kFlashWideGroups) wg = 256;
  const uint64_t dq = round_up(ceil_div(s.D, 4), 4), dvq = round_up(ceil_div(s.Dv, 4), 4);
  auto shared_bytes = [&] {
    return bk * std::max(dq, dvq) * 16 + (s.mask_code == kNoMask ? 4 : (wg / 4) * (bk + 1) * 4);
  };
  if (const char* text = tuning_env("OPENINFER_VULKAN_ATTENTION_TILE")) {
    const auto v = parse_tuning_list("attention", "OPENINFER_VULKAN_ATTENTION_TILE", text, 2);
    wg = v[0];
    bk = v[1];
    if ((wg != 128 && wg != 256) || bk < 8 || bk > 64 || shared_bytes() > kSharedBytes) {
      bad_setting("OPENINFER_VULKAN_ATTENTION_TILE",
                  "is no valid tile (WG 128 or 256, BK 8..64, within 32 KiB of shared memory)");
    }
  }
  while (shared_bytes() > kSharedBytes && bk > 8) bk /= 2;
  job.shader = "attention_flash";
  job.spec.push_back(vec4_loads(s, call.inputs[0].dtype));
  job.spec.push_back(static_cast<uint32_t>(dq));
  job.spec.push_back(static_cast<uint32_t>(dvq));
  job.spec.push_back(bk);
  job.spec.push_back(wg);
  const uint64_t groups = ceil_div(s.Tq, wg / 4) * s.batches;
  job.groups = {fit32(std::min<uint64_t>(groups, 65535)), 1, 1};
  run_dispatch(call.device, job);
}

void run_coop(const oi_kernel_call& call, const Shape& s, Dispatch job) {
  const DeviceCaps& caps = caps_of(call.device);
  job.shader = "attention_coop";
  job.spec.push_back(0);  // VEC4: unused
  job.spec.push_back(caps.coop_n);
  job.spec.push_back(caps.coop_k);
  job.spec.push_back(static_cast<uint32_t>(s.D));
  job.spec.push_back(static_cast<uint32_t>(s.Dv));
  const CoopTile tile = coop_tile();
  job.spec.push_back(static_cast<uint32_t>(tile.keys));
  job.spec.push_back(static_cast<uint32_t>(tile.subgroups));
  job.spec.push_back(static_cast<uint32_t>(tile.subgroups * 32));
  const uint64_t groups = ceil_div(s.Tq, tile.subgroups * 16) * s.batches;
  job.groups = {fit32(std::min<uint64_t>(groups, 65535)), 1, 1};
  run_dispatch(call.device, job);
}

// The keys of a split chunk for each of the 16 lane groups (a chunk is 16 times as many keys):
// the largest that still gives the GPU kSplitFillGroups workgroups.
uint32_t split_keys_per_group(const Shape& s) {
  if (const char* text = tuning_env("OPENINFER_VULKAN_ATTENTION_CHUNK")) {
    const auto v = parse_tuning_list("attention", "OPENINFER_VULKAN_ATTENTION_CHUNK", text, 1);
    if (v[0] % kSplitSlots != 0 || v[0] > 16 * kSplitSlots) {
      bad_setting("OPENINFER_VULKAN_ATTENTION_CHUNK", "is no multiple of 16 in 16..256");
    }
    return v[0] / kSplitSlots;
  }
  for (uint32_t kpt : {16u, 8u, 4u}) {
    if (s.rows() * ceil_div(s.Tk, kpt * kSplitSlots) >= kSplitFillGroups) return kpt;
  }
  return 2;
}

void check(oi_status* status) {
  if (status == nullptr) return;
  const std::string what = host()->status_message ? host()->status_message(status) : "";
  if (host()->status_free) host()->status_free(status);
  fail(OI_STATUS_INTERNAL, what);
}

// attention_split.comp's 16-byte K and V loads (VEC8): f16 or bf16 rows of whole octets, every
// matrix on 8 elements; OPENINFER_VULKAN_ATTENTION_WIDE=off keeps 8-byte loads (for comparison).
bool split_wide(const Shape& s) {
  const char* name = "OPENINFER_VULKAN_ATTENTION_WIDE";
  if (const char* text = tuning_env(name)) {
    if (std::strcmp(text, "off") == 0) return false;
    if (std::strcmp(text, "on") != 0) bad_setting(name, "is neither 'on' nor 'off'");
  }
  const bool half = s.dtype == OI_DTYPE_F16 || s.dtype == OI_DTYPE_BF16;
  return half && s.aligned4 && s.qkv8 && s.D % 8 == 0 && s.Dv % 8 == 0;
}

void run_split(const oi_kernel_call& call, const Shape& s, Dispatch job) {
  const uint32_t kpt = split_keys_per_group(s);
  const uint64_t chunk = uint64_t{kpt} * kSplitSlots, chunks = ceil_div(s.Tk, chunk);
  // Quads of a row, rounded up to whole octets for each of the 8 lanes under VEC8.
  const bool wide = split_wide(s);
  const uint64_t lane_quads = wide ? 2 * kSplitLanes : kSplitLanes;
  const uint64_t dq = round_up(ceil_div(s.D, 4), lane_quads);
  const uint64_t dvq = round_up(ceil_div(s.Dv, 4), lane_quads);
  const uint64_t stride = 4 + 4 * dvq;  // floats of one chunk's partial result
  job.params[10] = fit32(chunks);
  job.params[11] = fit32(stride);
  job.params[12] = chunks == 1 ? 1 : 0;
  job.spec.push_back(vec4_loads(s, call.inputs[0].dtype));
  job.spec.push_back(static_cast<uint32_t>(dq));
  job.spec.push_back(static_cast<uint32_t>(dvq));
  job.spec.push_back(kpt);
  job.spec.push_back(wide ? 1 : 0);
  const uint32_t row_groups = fit32(std::min<uint64_t>(s.rows(), 65535));
  job.groups = {fit32(std::min<uint64_t>(chunks, 65535)), row_groups, 1};
  job.shader = "attention_split";
  if (chunks == 1) {  // the split shader writes y itself
    run_dispatch(call.device, job);
    return;
  }
  oi_buffer* partials = nullptr;
  const uint64_t floats = s.rows() * chunks * stride;
  fit32(floats, "attention partial results");
  // Every (row, chunk) slot is written by the first pass before the second reads it: no fill.
  check(scratch_alloc(call.device, floats * 4, &partials));
  // The scratch goes when the call ends, thrown or not; commands recorded later run after the
  // ones using it, so the buffer may be reused at once.
  struct Free {
    oi_device* d;
    oi_buffer* b;
    ~Free() { buffer_free(d, b); }
  } release{call.device, partials};
  job.buffers[5] = partials;
  run_dispatch(call.device, job);
  job.shader = "attention_combine";
  job.spec.resize(2);  // DT and MDT
  job.groups = {row_groups, 1, 1};
  run_dispatch(call.device, job);
}

oi_status* attention_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc &q = call->inputs[0], &k = call->inputs[1], &v = call->inputs[2];
  const oi_tensor_desc& out = call->outputs[0];
  const bool has_mask = call->num_inputs > 3;
  if (out.rank < 2) fail(OI_STATUS_INVALID_ARGUMENT, "q, k and v need rank >= 2");
  Shape s;
  s.Tq = q.dims[q.rank - 2];
  s.D = q.dims[q.rank - 1];
  s.Tk = k.dims[k.rank - 2];
  s.Dv = v.dims[v.rank - 1];
  const uint64_t Tq = s.Tq, D = s.D, Tk = s.Tk, Dv = s.Dv;
  std::vector<uint64_t> batch_dims(out.dims, out.dims + out.rank - 2);
  uint64_t batches = 1;
  for (uint64_t d : batch_dims) batches *= d;
  s.batches = batches;
  if (batches == 0 || Tq == 0 || Dv == 0) return nullptr;
  if (D > kMaxHeadDim || Dv > kMaxHeadDim) {
    fail(OI_STATUS_DECLINED, "head dims above 1024 on the Vulkan backend");
  }
  // Per tensor: strides of the batch dims (matrices for q/k/v, elements for the mask).
  auto batch_strides = [&](const oi_tensor_desc& t, uint64_t matrix) {
    oi_tensor_desc lead = t;
    lead.rank = t.rank - 2;
    auto st = strides_against(lead, batch_dims);
    for (auto& x : st) x *= matrix;
    return st;
  };
  const auto sq = batch_strides(q, Tq * D), sk = batch_strides(k, Tk * D),
             sv = batch_strides(v, Tk * Dv);
  std::vector<uint64_t> sm(batch_dims.size(), 0);
  uint64_t mask_row = 0, mask_col = 0;
  uint32_t mask_code = kNoMask;
  if (has_mask) {
    const oi_tensor_desc& m = call->inputs[3];
    std::vector<uint64_t> full = batch_dims;
    full.push_back(Tq);
    full.push_back(Tk);
    const auto st = strides_against(m, full);
    std::copy(st.begin(), st.end() - 2, sm.begin());
    mask_row = st[st.size() - 2];
    mask_col = st[st.size() - 1];
    mask_code = static_cast<uint32_t>(wide_dtype_code(m.dtype));
  }
  const bool f64 = q.dtype == OI_DTYPE_F64;
  s.f64 = f64;
  s.mask_code = mask_code;
  Dispatch job;
  job.shader = f64 ? "attention_f64" : mask_code == kMaskF64 ? "attention_m64" : "attention";
  job.float_width = f64 ? 64 : 32;
  job.also_f64 = !f64 && mask_code == kMaskF64;
  job.spec = {static_cast<uint32_t>(f64 ? 0 : ew_dtype_code(q.dtype)), mask_code};
  const double scale = abi::setting_float(*call, "scale", D > 0 ? 1.0 / std::sqrt(double(D)) : 1.0);
  job.params.assign(16, 0);
  job.params[0] = fit32(Tq);
  job.params[1] = fit32(Tk);
  job.params[2] = fit32(D);
  job.params[3] = fit32(Dv);
  job.params[4] = fit32(batches);
  job.params[5] = abi::setting_bool(*call, "causal", false) ? 1 : 0;
  if (f64) {  // low word in 6, high word in 10
    const auto bits = std::bit_cast<uint64_t>(scale);
    job.params[6] = static_cast<uint32_t>(bits);
    job.params[10] = static_cast<uint32_t>(bits >> 32);
  } else {
    job.params[6] = std::bit_cast<uint32_t>(static_cast<float>(scale));
  }
  job.params[7] = fit32(mask_row);
  job.params[8] = fit32(mask_col);
  job.params[9] = element_index(out);
  fit32(job.params[9] + batches * Tq * Dv + 2);
  const uint32_t q0 = element_index(q), k0 = element_index(k), v0 = element_index(v);
  const uint32_t m0 = has_mask ? element_index(call->inputs[3]) : 0;
  s.aligned4 = true;
  s.qkv8 = true;
  s.dtype = q.dtype;
  for (uint64_t b = 0; b < batches; ++b) {
    uint64_t rest = b, oq = q0, ok = k0, ov = v0, om = m0;
    for (size_t d = batch_dims.size(); d-- > 0;) {
      const uint64_t c = rest % batch_dims[d];
      rest /= batch_dims[d];
      oq += c * sq[d];
      ok += c * sk[d];
      ov += c * sv[d];
      om += c * sm[d];
    }
    for (uint64_t o : {oq, ok, ov, om}) job.params.push_back(fit32(o));
    s.aligned4 = s.aligned4 && oq % 4 == 0 && ok % 4 == 0 && ov % 4 == 0;
    s.qkv8 = s.qkv8 && oq % 8 == 0 && ok % 8 == 0 && ov % 8 == 0;
  }
  s.aligned8 = s.qkv8 && job.params[9] % 2 == 0;
  job.buffers = {q.buffer,   k.buffer, v.buffer, has_mask ? call->inputs[3].buffer : q.buffer,
                 out.buffer, nullptr};
  job.output = 4;
  switch (pick_path(s, call->device)) {
    case Path::Flash:
      run_flash(*call, s, job);
      break;
    case Path::Split:
      run_split(*call, s, job);
      break;
    case Path::Coop:
      run_coop(*call, s, job);
      break;
    case Path::General:
      job.groups = {fit32(std::min<uint64_t>(Tq, 65535)), fit32(std::min<uint64_t>(batches, 65535)),
                    1};
      run_dispatch(call->device, job);
      break;
  }
  OI_ABI_CATCH(call->host)
}

void register_attention(std::vector<VulkanKernel>& list) {
  for (uint32_t t : dtype_union({kEwFloats, kEwF8, {OI_DTYPE_F64}})) {
    list.push_back(
        {"attention", {t, t, t}, t, OI_KERNEL_MODE_NORMAL, needs_for(t), &attention_kernel});
    for (uint32_t m :
         {OI_DTYPE_F32, OI_DTYPE_F16, OI_DTYPE_BF16, OI_DTYPE_F8, OI_DTYPE_BOOL, OI_DTYPE_F64}) {
      const Needs needs = t == OI_DTYPE_F64 || m == OI_DTYPE_F64 ? Needs::F64 : Needs::Nothing;
      list.push_back(
          {"attention", {t, t, t, m}, t, OI_KERNEL_MODE_NORMAL, needs, &attention_kernel});
    }
  }
}

const KernelRegistration registration(register_attention);

}  // namespace
}  // namespace oi::vulkan
