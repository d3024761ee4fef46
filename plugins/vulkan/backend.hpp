// The Vulkan backend's plugin-facing pieces, free of vulkan.hpp so that kernels compile fast:
// the oi_backend_api slots, what a device can do, and the one way kernels reach the GPU.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "openinfer/plugin_abi.h"

namespace oi::vulkan {

const oi_host_api*& host();

// What kernels and the kernel table need to know about a device.
struct DeviceCaps {
  bool f64 = false;               // shaderFloat64
  bool i64 = false;               // shaderInt64
  bool float_controls32 = false;  // subnormals and IEEE specials preserved in f32 shaders
  bool float_controls64 = false;  // the same for f64
  // Signed zeros, inf and NaN preserved (without it NVIDIA's compiler assumes no inf/NaN).
  bool ieee_specials32 = false;
  bool ieee_specials64 = false;
  bool storage16 = false;  // storageBuffer16BitAccess
  bool storage8 = false;   // storageBuffer8BitAccess
  uint32_t subgroup_size = 0;
  // The subgroup operations compute shaders may use (VkSubgroupFeatureFlags; 0 where compute is
  // not among the supported stages) and maxComputeSharedMemorySize, for the shaders that need
  // them (the fast attention paths, the conv tiles).
  uint32_t subgroup_ops = 0;
  uint32_t max_shared_memory = 16384;
  uint32_t max_storage_range = 0;  // maxStorageBufferRange: the largest buffer a shader binds
  // Tensor cores through VK_NV_cooperative_matrix (with the Vulkan memory model and shaderFloat16,
  // which its shaders need): the subgroup-scope f16 x f16 + f32 shape matmul_coop.comp uses
  // (M x N x K, 0 where there is none), and every shape the driver reports, for the device name.
  uint32_t coop_m = 0, coop_n = 0, coop_k = 0;
  std::string coop_shapes;
};

// The caps of device `index` of the picked list, or nullptr when there is no such device.
const DeviceCaps* device_caps(uint32_t index);
// A line for the plugin's description: why no device was found, or which one was picked.
const std::string& device_summary();
const DeviceCaps& caps_of(const oi_device* device);

constexpr uint32_t kDataBindings = 6;

// One compute dispatch. Bindings: 0 = params (copied into the batch's host-visible arena, bound
// at their offset), 1..6 = the data buffers, whole (kernels pass word offsets in the params);
// nullptr binds buffers[output].
constexpr uint8_t kExactWhereFlushed = 1, kExactAlways = 2;

struct Dispatch {
  std::string shader;        // a base variant name from CMakeLists.txt: "eltwise_32"
  uint32_t float_width = 0;  // 32/64: use the "_fc" or "_ieee" variant where supported
  bool also_f64 = false;     // with float_width 32: the variant also needs the f64 controls
  // With float_width 32: the shader has "_exact"/"_ieee_exact" variants (f32 add, sub, mul, relu
  // exact on the bits, shaders/exact_f32.glsl). kExactWhereFlushed takes them where the device
  // cannot keep f32 subnormals (no "_fc"), kExactAlways everywhere (for tests).
  uint8_t exact_f32 = 0;
  std::vector<uint32_t> spec;  // specialization constants 0, 1, ...
  std::vector<uint32_t> params;
  std::array<oi_buffer*, kDataBindings> buffers{};
  uint32_t output = 2;  // the slot of the output buffer
  std::array<uint32_t, 3> groups{1, 1, 1};
  // No barrier after this dispatch: the next command may run alongside it. Only where the next
  // command reads nothing this one writes and writes nothing this one reads or writes.
  bool overlap_next = false;
};

// Records one dispatch into the device's open batch (command_stream.hpp): it runs after every
// command recorded before it and before every later one; nothing waits for it here. Throws on
// failure (callers are inside OI_ABI_TRY).
void run_dispatch(oi_device* device, const Dispatch& dispatch);

oi_status* device_count(void* context, uint32_t* out_count);
oi_status* device_get_info(void* context, uint32_t index, oi_device_info* out_info);
oi_status* device_open(void* context, uint32_t index, oi_device** out_device);
void device_close(oi_device* device);
oi_status* buffer_alloc(oi_device* device, uint64_t bytes, oi_buffer** out_buffer);
// buffer_alloc without the zero fill: for a kernel's scratch that its own dispatches write in
// full before any reads it (a reused buffer holds old bytes). Freed with buffer_free.
oi_status* scratch_alloc(oi_device* device, uint64_t bytes, oi_buffer** out_buffer);
void buffer_free(oi_device* device, oi_buffer* buffer);
oi_status* buffer_upload(oi_device* device, oi_buffer* buffer, uint64_t offset, const void* src,
                         uint64_t bytes);
oi_status* buffer_download(oi_device* device, oi_buffer* buffer, uint64_t offset, void* dst,
                           uint64_t bytes);
oi_status* synchronize(oi_device* device);
oi_status* buffer_copy(oi_device* device, oi_buffer* src, uint64_t src_offset, oi_buffer* dst,
                       uint64_t dst_offset, uint64_t bytes);
// Drops the instance; called from the plugin's shutdown.
void shutdown_instance();

}  // namespace oi::vulkan
