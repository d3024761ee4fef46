// Logical devices, buffers in device memory, the pipeline cache (kept on disk by
// pipeline_cache.cpp) and the kernels' way to the GPU. Work is not submitted call by call: every
// dispatch, zero fill, upload and download is recorded into the device's CommandStream
// (command_stream.hpp), which records consecutive commands into segments submitted together,
// submits kept segments again where a stretch of work repeats (replay), and waits only where the
// host needs data back (buffer_download) or asks for it (synchronize). One mutex per device:
// calls from several threads take turns.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>

#include "command_stream.hpp"
#include "kernels/word_copy.hpp"
#include "openinfer/plugin_abi.hpp"
#include "pipeline_cache.hpp"
#include "pipeline_stats.hpp"
#include "shaders.hpp"
#include "vk_context.hpp"

struct oi_buffer {
  oi::vulkan::Allocation alloc;
  uint64_t bytes;  // what the host asked for; alloc.size may be larger
};

struct oi_device {
  const oi::vulkan::PhysicalDevice* phys;
  vk::PhysicalDeviceMemoryProperties memory;
  vk::Device device;
  vk::Queue queue;
  vk::DescriptorSetLayout set_layout;
  vk::PipelineLayout layout;
  vk::PipelineCache cache;
  std::filesystem::path cache_path;   // empty: not kept on disk
  std::vector<uint8_t> cache_loaded;  // what the file held: saved again only when changed
  std::map<std::string, vk::ShaderModule> modules;
  // By shader variant name, a NUL, then the specialization constants' bytes.
  std::unordered_map<std::string, vk::Pipeline> pipelines;
  std::string pipeline_key;     // reused: no allocation per lookup
  bool pipeline_stats = false;  // OPENINFER_VULKAN_PIPELINE_STATS=1 on a device that has them
  oi::vulkan::CommandStream stream;
  // Freed device buffers by size, reused by later allocations of the same size: the executor
  // allocates per node, and vkAllocateMemory costs far more than a kernel on small tensors.
  // Reuse needs no wait: the reusing commands are recorded after the earlier ones, in order.
  std::multimap<vk::DeviceSize, oi::vulkan::Allocation> free_pool;
  vk::DeviceSize free_pool_bytes = 0;
  std::mutex mutex;  // one queue, one command stream: calls take turns
};

namespace oi::vulkan {
namespace {

void check_range(const oi_buffer* buffer, uint64_t offset, uint64_t bytes, const char* what) {
  if (offset > buffer->bytes || bytes > buffer->bytes - offset) {
    throw abi::StatusError(OI_STATUS_INVALID_ARGUMENT, std::string(what) + " outside the buffer");
  }
}

vk::ShaderModule module_for(oi_device& d, const std::string& name) {
  auto it = d.modules.find(name);
  if (it != d.modules.end()) return it->second;
  const SpirvCode code = spirv_code(name);
  if (code.words == nullptr) {
    throw abi::StatusError(OI_STATUS_INTERNAL, "no embedded shader " + name);
  }
  vk::ShaderModule m =
      d.device.createShaderModule(vk::ShaderModuleCreateInfo({}, code.count * 4, code.words));
  d.modules.emplace(name, m);
  return m;
}

// The pipeline of `shader` + `suffix` (the float-controls variant) with these constants.
vk::Pipeline pipeline_for(oi_device& d, const std::string& shader, const char* suffix,
                          const std::vector<uint32_t>& spec) {
  std::string& key = d.pipeline_key;
  key.assign(shader);
  key.append(suffix);
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(spec.data()), spec.size() * 4);
  auto it = d.pipelines.find(key);
  if (it != d.pipelines.end()) return it->second;
  const std::string name = shader + suffix;
  std::vector<vk::SpecializationMapEntry> entries;
  for (uint32_t i = 0; i < spec.size(); ++i) entries.emplace_back(i, 4 * i, 4);
  vk::SpecializationInfo spec_info(static_cast<uint32_t>(entries.size()), entries.data(),
                                   spec.size() * 4, spec.data());
  vk::PipelineShaderStageCreateInfo stage({}, vk::ShaderStageFlagBits::eCompute,
                                          module_for(d, name), "main", &spec_info);
  const vk::PipelineCreateFlags flags = d.pipeline_stats
                                            ? vk::PipelineCreateFlagBits::eCaptureStatisticsKHR
                                            : vk::PipelineCreateFlags{};
  auto result = d.device.createComputePipeline(
      d.cache, vk::ComputePipelineCreateInfo(flags, stage, d.layout));
  if (result.result != vk::Result::eSuccess) {
    throw abi::StatusError(OI_STATUS_INTERNAL,
                           "pipeline " + name + ": " + vk::to_string(result.result));
  }
  d.pipelines.emplace(key, result.value);
  if (d.pipeline_stats) log_pipeline_stats(d.device, result.value, name, spec);
  return result.value;
}

void open_pipeline_cache(oi_device& d) {
  const auto props = d.phys->handle.getProperties();
  d.cache_path = pipeline_cache_path(props);
  d.cache_loaded = load_pipeline_cache(d.cache_path, props);
  if (!d.cache_loaded.empty()) {
    try {
      d.cache = d.device.createPipelineCache(
          vk::PipelineCacheCreateInfo({}, d.cache_loaded.size(), d.cache_loaded.data()));
      return;
    } catch (const vk::SystemError&) {  // the driver refused the data: start empty
      d.cache_loaded.clear();
    }
  }
  d.cache = d.device.createPipelineCache({});
}

void store_pipeline_cache(oi_device& d) {
  if (d.cache_path.empty() || d.pipelines.empty()) return;
  try {
    const std::vector<uint8_t> data = d.device.getPipelineCacheData(d.cache);
    if (data != d.cache_loaded) save_pipeline_cache(d.cache_path, data);
  } catch (...) {  // an optimisation only: never fail a close over it
  }
}

void create_device(oi_device& d) {
  const PhysicalDevice& p = *d.phys;
  d.memory = p.handle.getMemoryProperties();
  const float priority = 1.0f;
  vk::DeviceQueueCreateInfo queue_info({}, p.queue_family, 1, &priority);
  vk::StructureChain<vk::DeviceCreateInfo, vk::PhysicalDeviceFeatures2,
                     vk::PhysicalDeviceVulkan12Features,
                     vk::PhysicalDeviceCooperativeMatrixFeaturesNV,
                     vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>
      chain;
  auto& features = chain.get<vk::PhysicalDeviceFeatures2>().features;
  features.shaderFloat64 = p.caps.f64;
  features.shaderInt64 = p.caps.i64;
  std::vector<const char*> extensions;
  chain.get<vk::DeviceCreateInfo>().setQueueCreateInfos(queue_info);
  if (p.caps.coop_m != 0) {  // what matmul_coop.comp needs (instance.cpp checked the device has it)
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    chain.get<vk::PhysicalDeviceVulkan12Features>().setVulkanMemoryModel(true).setShaderFloat16(
        true);
    chain.get<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>().setCooperativeMatrix(true);
  } else {
    chain.unlink<vk::PhysicalDeviceVulkan12Features>();
    chain.unlink<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>();
  }
  d.pipeline_stats = pipeline_stats_wanted(p.handle);
  if (d.pipeline_stats) {
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    chain.get<vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>()
        .setPipelineExecutableInfo(true);
  } else {
    chain.unlink<vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>();
  }
  chain.get<vk::DeviceCreateInfo>().setPEnabledExtensionNames(extensions);
  d.device = p.handle.createDevice(chain.get<vk::DeviceCreateInfo>());
  d.queue = d.device.getQueue(p.queue_family, 0);
  std::vector<vk::DescriptorSetLayoutBinding> bindings;
  for (uint32_t b = 0; b < kDataBindings + 1; ++b) {
    bindings.emplace_back(b, vk::DescriptorType::eStorageBuffer, 1,
                          vk::ShaderStageFlagBits::eCompute);
  }
  d.set_layout =
      d.device.createDescriptorSetLayout(vk::DescriptorSetLayoutCreateInfo({}, bindings));
  d.layout = d.device.createPipelineLayout(vk::PipelineLayoutCreateInfo({}, d.set_layout));
  open_pipeline_cache(d);
  StreamSetup setup;
  setup.device = d.device;
  setup.queue = d.queue;
  setup.queue_family = p.queue_family;
  setup.memory = d.memory;
  setup.set_layout = d.set_layout;
  setup.pipeline_layout = d.layout;
  setup.params_alignment =
      std::max<vk::DeviceSize>(p.handle.getProperties().limits.minStorageBufferOffsetAlignment, 4);
  d.stream.open(setup);
}

void destroy_device(oi_device& d) {
  if (!d.device) return;
  d.stream.close();  // waits for everything, then frees what was kept for running batches
  if (d.cache) store_pipeline_cache(d);
  for (auto& [key, pipeline] : d.pipelines) d.device.destroyPipeline(pipeline);
  for (auto& [name, module] : d.modules) d.device.destroyShaderModule(module);
  for (auto& [size, alloc] : d.free_pool) release(d.device, alloc);
  d.free_pool.clear();
  if (d.cache) d.device.destroyPipelineCache(d.cache);
  if (d.layout) d.device.destroyPipelineLayout(d.layout);
  if (d.set_layout) d.device.destroyDescriptorSetLayout(d.set_layout);
  d.device.destroy();
}

// Fault injection for tests (docs/runtime.md "Failed steps"): OPENINFER_VULKAN_FAULT=oom makes
// every allocation fail as out of device memory, =device_lost every transfer as on a lost
// device; read at each call, so a test can switch the fault on and off between steps.
oi_status* injected_fault(const char* kind) {
  const char* fault = std::getenv("OPENINFER_VULKAN_FAULT");
  if (fault == nullptr || std::strcmp(fault, kind) != 0) return nullptr;
  if (std::strcmp(kind, "oom") == 0) {
    return abi::make_status(host(), OI_STATUS_OUT_OF_MEMORY,
                            "vulkan: out of device memory (injected: OPENINFER_VULKAN_FAULT=oom)");
  }
  return abi::make_status(host(), OI_STATUS_UNAVAILABLE,
                          "vulkan: device lost (injected: OPENINFER_VULKAN_FAULT=device_lost)");
}

}  // namespace

const DeviceCaps& caps_of(const oi_device* device) {
  return device->phys->caps;
}

void run_dispatch(oi_device* device, const Dispatch& job) {
  oi_device& d = *device;
  std::lock_guard lock(d.mutex);
  const uint32_t width = job.float_width;
  const DeviceCaps& caps = d.phys->caps;
  const bool fc =
      ((width == 32 && caps.float_controls32) || (width == 64 && caps.float_controls64)) &&
      (!job.also_f64 || caps.float_controls64);
  const bool ieee =
      ((width == 32 && caps.ieee_specials32) || (width == 64 && caps.ieee_specials64)) &&
      (!job.also_f64 || caps.ieee_specials64);
  // A device that flushes f32 subnormals takes the shader's exact variant where it has one.
  const bool exact = width == 32 && (job.exact_f32 == kExactAlways || (job.exact_f32 != 0 && !fc));
  const char* suffix = exact ? (ieee ? "_ieee_exact" : "_exact") : fc ? "_fc" : ieee ? "_ieee" : "";
  DispatchKey key;
  key.pipeline = pipeline_for(d, job.shader, suffix, job.spec);
  for (size_t i = 0; i < kDataBindings; ++i) {
    const oi_buffer* b = job.buffers[i] ? job.buffers[i] : job.buffers[job.output];
    if (b->alloc.size > caps.max_storage_range) {
      throw abi::StatusError(OI_STATUS_DECLINED,
                             "buffer larger than the device's maxStorageBufferRange (" +
                                 std::to_string(caps.max_storage_range) + " bytes)");
    }
    key.buffers[i] = b->alloc.buffer;
  }
  key.groups = job.groups;
  key.overlap_next = job.overlap_next;
  d.stream.dispatch(key, job.params);
}

oi_status* device_open(void*, uint32_t index, oi_device** out_device) {
  OI_ABI_TRY
  const auto& devices = context().devices;
  if (index >= devices.size()) {
    return abi::make_status(host(), OI_STATUS_NOT_FOUND, "no such Vulkan device");
  }
  auto d = std::make_unique<oi_device>();
  d->phys = &devices[index];
  try {
    create_device(*d);
  } catch (...) {
    destroy_device(*d);
    throw;
  }
  *out_device = d.release();
  OI_ABI_CATCH(host())
}

void device_close(oi_device* device) {
  if (device == nullptr) return;
  try {
    std::lock_guard lock(device->mutex);
    destroy_device(*device);
  } catch (...) {  // nothing to report to: the device goes away regardless
  }
  delete device;
}

namespace {

// A buffer from the pool or new; `zero`: a fill recorded after every earlier use of it.
oi_buffer* new_buffer(oi_device* device, uint64_t bytes, bool zero) {
  // Rounded up to whole words: shaders address buffers as uint[].
  const vk::DeviceSize size = std::max<vk::DeviceSize>((bytes + 3) & ~uint64_t{3}, 4);
  std::unique_lock lock(device->mutex);
  Allocation a;
  if (auto it = device->free_pool.find(size); it != device->free_pool.end()) {
    a = it->second;
    device->free_pool.erase(it);
    device->free_pool_bytes -= size;
  } else {
    lock.unlock();
    a = make_allocation(device->device, device->memory, size, false);
    lock.lock();
  }
  if (zero) {
    try {
      device->stream.fill_zero(a.buffer);
    } catch (...) {
      device->stream.release_later(a);
      throw;
    }
  }
  return new oi_buffer{a, bytes};
}

}  // namespace

oi_status* buffer_alloc(oi_device* device, uint64_t bytes, oi_buffer** out_buffer) {
  OI_ABI_TRY
  if (oi_status* fault = injected_fault("oom")) return fault;
  // New (and reused) buffers read as zero, as the CPU backend's do.
  *out_buffer = new_buffer(device, bytes, true);
  OI_ABI_CATCH(host())
}

oi_status* scratch_alloc(oi_device* device, uint64_t bytes, oi_buffer** out_buffer) {
  OI_ABI_TRY
  if (oi_status* fault = injected_fault("oom")) return fault;
  *out_buffer = new_buffer(device, bytes, false);
  OI_ABI_CATCH(host())
}

void buffer_free(oi_device* device, oi_buffer* buffer) {
  if (buffer == nullptr) return;
  // Kept for reuse up to a bound, so that a model's worth of per-node temporaries stays
  // allocated but a burst of large buffers does not pin device memory for good.
  constexpr vk::DeviceSize kPoolBytes = vk::DeviceSize{1} << 30;
  std::lock_guard lock(device->mutex);
  const vk::DeviceSize size = buffer->alloc.size;
  try {
    if (device->free_pool_bytes + size <= kPoolBytes && device->free_pool.size() < 4096) {
      device->free_pool.emplace(size, buffer->alloc);
      device->free_pool_bytes += size;
    } else {
      device->stream.release_later(buffer->alloc);  // recorded commands may still use it
    }
  } catch (...) {  // out of host memory: leak the buffer rather than destroy it in use
  }
  delete buffer;
}

oi_status* buffer_upload(oi_device* device, oi_buffer* buffer, uint64_t offset, const void* src,
                         uint64_t bytes) {
  OI_ABI_TRY
  if (oi_status* fault = injected_fault("device_lost")) return fault;
  check_range(buffer, offset, bytes, "upload");
  if (bytes == 0) return nullptr;
  std::lock_guard lock(device->mutex);
  device->stream.upload(buffer->alloc.buffer, offset, src, bytes);
  OI_ABI_CATCH(host())
}

oi_status* buffer_download(oi_device* device, oi_buffer* buffer, uint64_t offset, void* dst,
                           uint64_t bytes) {
  OI_ABI_TRY
  if (oi_status* fault = injected_fault("device_lost")) return fault;
  check_range(buffer, offset, bytes, "download");
  if (bytes == 0) return nullptr;
  std::lock_guard lock(device->mutex);
  device->stream.download(buffer->alloc.buffer, offset, dst, bytes);
  OI_ABI_CATCH(host())
}

namespace {

// A copy of whole words as a dispatch of move.comp (its rank-1 copy, as reshape's): the offsets
// are parameters, so a replay that meets the same copy at other offsets (the K/V table entry
// of the next position) rewrites them in place of recording the copy again in a segment of its
// own (docs/vulkan.md, "Replay"). False where vkCmdCopyBuffer does it: unaligned ranges,
// ranges past what the shader addresses, a buffer past maxStorageBufferRange, overlapping
// ranges of one buffer, or OPENINFER_VULKAN_COPY_DISPATCH=0.
bool copy_by_dispatch(oi_device* device, oi_buffer* src, uint64_t src_offset, oi_buffer* dst,
                      uint64_t dst_offset, uint64_t bytes) {
  if (((src_offset | dst_offset | bytes) & 3) != 0) return false;
  const uint64_t words = bytes / 4, from = src_offset / 4, to = dst_offset / 4;
  constexpr uint64_t kMaxWord = std::numeric_limits<int32_t>::max() - 4;
  if (from + words > kMaxWord || to + words > kMaxWord) return false;
  const uint64_t range = caps_of(device).max_storage_range;
  if (src->alloc.size > range || dst->alloc.size > range) return false;
  if (src == dst && from < to + words && to < from + words) return false;
  static const bool disabled = [] {  // read once: buffer_copy runs hundreds of times a step
    const char* env = std::getenv("OPENINFER_VULKAN_COPY_DISPATCH");
    return env != nullptr && std::strcmp(env, "0") == 0;
  }();
  if (disabled) return false;
  run_word_copy(device, src, static_cast<uint32_t>(from), dst, static_cast<uint32_t>(to),
                static_cast<uint32_t>(words));
  return true;
}

}  // namespace

oi_status* buffer_copy(oi_device* device, oi_buffer* src, uint64_t src_offset, oi_buffer* dst,
                       uint64_t dst_offset, uint64_t bytes) {
  OI_ABI_TRY
  check_range(src, src_offset, bytes, "copy source");
  check_range(dst, dst_offset, bytes, "copy destination");
  if (bytes == 0) return nullptr;
  if (copy_by_dispatch(device, src, src_offset, dst, dst_offset, bytes)) return nullptr;
  std::lock_guard lock(device->mutex);
  device->stream.copy(src->alloc.buffer, src_offset, dst->alloc.buffer, dst_offset, bytes);
  OI_ABI_CATCH(host())
}

oi_status* synchronize(oi_device* device) {
  OI_ABI_TRY
  std::lock_guard lock(device->mutex);
  device->stream.synchronize();
  OI_ABI_CATCH(host())
}

}  // namespace oi::vulkan
