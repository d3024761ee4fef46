// Logical devices, buffers in device memory with explicit staging transfers, the pipeline
// cache (kept on disk by pipeline_cache.cpp), and synchronous submission: every call records one
// command buffer, submits it and waits, so synchronize() has nothing left to wait for.
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "openinfer/plugin_abi.hpp"
#include "pipeline_cache.hpp"
#include "shaders.hpp"
#include "vk_context.hpp"

namespace oi::vulkan {
namespace {

constexpr vk::DeviceSize kStagingBytes = 16u << 20;  // transfers go through in 16 MiB pieces

uint32_t find_memory_type(const vk::PhysicalDeviceMemoryProperties& props, uint32_t allowed,
                          vk::MemoryPropertyFlags want, vk::MemoryPropertyFlags prefer) {
  int best = -1;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    const auto flags = props.memoryTypes[i].propertyFlags;
    if (!(allowed & (1u << i)) || (flags & want) != want) continue;
    if ((flags & prefer) == prefer) return i;
    if (best < 0) best = static_cast<int>(i);
  }
  if (best < 0) throw abi::StatusError(OI_STATUS_UNAVAILABLE, "no suitable Vulkan memory type");
  return static_cast<uint32_t>(best);
}

// A buffer and its own allocation; host-visible ones stay mapped.
struct Allocation {
  vk::Buffer buffer;
  vk::DeviceMemory memory;
  vk::DeviceSize size = 0;
  void* mapped = nullptr;
};

}  // namespace
}  // namespace oi::vulkan

struct oi_buffer {
  oi::vulkan::Allocation alloc;
  uint64_t bytes;  // what the host asked for; alloc.size may be larger
};

struct oi_device {
  const oi::vulkan::PhysicalDevice* phys;
  vk::PhysicalDeviceMemoryProperties memory;
  vk::Device device;
  vk::Queue queue;
  vk::CommandPool command_pool;
  vk::CommandBuffer cmd;
  vk::Fence fence;
  vk::DescriptorSetLayout set_layout;
  vk::PipelineLayout layout;
  vk::DescriptorPool descriptors;
  vk::PipelineCache cache;
  std::filesystem::path cache_path;   // empty: not kept on disk
  std::vector<uint8_t> cache_loaded;  // what the file held: saved again only when changed
  std::map<std::string, vk::ShaderModule> modules;
  std::map<std::pair<std::string, std::vector<uint32_t>>, vk::Pipeline> pipelines;
  oi::vulkan::Allocation staging;
  oi::vulkan::Allocation params;
  // Freed device buffers by size, reused by later allocations of the same size: the executor
  // allocates per node, and vkAllocateMemory costs far more than a kernel on small tensors.
  std::multimap<vk::DeviceSize, oi::vulkan::Allocation> free_pool;
  vk::DeviceSize free_pool_bytes = 0;
  std::mutex mutex;  // one queue, one command buffer: calls take turns
};

namespace oi::vulkan {
namespace {

Allocation make_allocation(oi_device& d, vk::DeviceSize size, bool host_visible) {
  Allocation a;
  a.size = std::max<vk::DeviceSize>(size, 4);  // Vulkan has no empty buffers
  a.buffer = d.device.createBuffer(vk::BufferCreateInfo({}, a.size,
                                                        vk::BufferUsageFlagBits::eStorageBuffer |
                                                            vk::BufferUsageFlagBits::eTransferSrc |
                                                            vk::BufferUsageFlagBits::eTransferDst));
  const auto req = d.device.getBufferMemoryRequirements(a.buffer);
  using M = vk::MemoryPropertyFlagBits;
  const uint32_t type = host_visible
                            ? find_memory_type(d.memory, req.memoryTypeBits,
                                               M::eHostVisible | M::eHostCoherent, M::eHostCached)
                            : find_memory_type(d.memory, req.memoryTypeBits, M::eDeviceLocal, {});
  try {
    a.memory = d.device.allocateMemory(vk::MemoryAllocateInfo(req.size, type));
  } catch (const vk::SystemError&) {
    d.device.destroyBuffer(a.buffer);
    throw abi::StatusError(OI_STATUS_OUT_OF_MEMORY,
                           "Vulkan allocation of " + std::to_string(size) + " bytes failed");
  }
  d.device.bindBufferMemory(a.buffer, a.memory, 0);
  if (host_visible) a.mapped = d.device.mapMemory(a.memory, 0, VK_WHOLE_SIZE);
  return a;
}

void release(oi_device& d, Allocation& a) {
  if (a.buffer) d.device.destroyBuffer(a.buffer);
  if (a.memory) d.device.freeMemory(a.memory);  // also unmaps
  a = {};
}

// Everything before the command buffer is visible to everything in it (earlier submissions
// wrote through other command buffers; a fence wait alone does not make them visible).
void full_barrier(vk::CommandBuffer cmd) {
  using A = vk::AccessFlagBits;
  vk::MemoryBarrier barrier(A::eMemoryWrite, A::eMemoryRead | A::eMemoryWrite);
  cmd.pipelineBarrier(vk::PipelineStageFlagBits::eAllCommands,
                      vk::PipelineStageFlagBits::eAllCommands, {}, barrier, {}, {});
}

template <class Record>
void submit_and_wait(oi_device& d, Record record) {
  d.cmd.reset();
  d.cmd.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
  full_barrier(d.cmd);
  record(d.cmd);
  // Make the results visible to the host (downloads map the staging buffer).
  vk::MemoryBarrier to_host(vk::AccessFlagBits::eMemoryWrite, vk::AccessFlagBits::eHostRead);
  d.cmd.pipelineBarrier(vk::PipelineStageFlagBits::eAllCommands, vk::PipelineStageFlagBits::eHost,
                        {}, to_host, {}, {});
  d.cmd.end();
  d.queue.submit(vk::SubmitInfo({}, {}, d.cmd), d.fence);
  const vk::Result waited = d.device.waitForFences(d.fence, VK_TRUE, UINT64_MAX);
  d.device.resetFences(d.fence);
  if (waited != vk::Result::eSuccess) {
    throw abi::StatusError(OI_STATUS_INTERNAL, "Vulkan fence wait: " + vk::to_string(waited));
  }
}

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

vk::Pipeline pipeline_for(oi_device& d, const std::string& name,
                          const std::vector<uint32_t>& spec) {
  auto key = std::make_pair(name, spec);
  auto it = d.pipelines.find(key);
  if (it != d.pipelines.end()) return it->second;
  std::vector<vk::SpecializationMapEntry> entries;
  for (uint32_t i = 0; i < spec.size(); ++i) entries.emplace_back(i, 4 * i, 4);
  vk::SpecializationInfo spec_info(static_cast<uint32_t>(entries.size()), entries.data(),
                                   spec.size() * 4, spec.data());
  vk::PipelineShaderStageCreateInfo stage({}, vk::ShaderStageFlagBits::eCompute,
                                          module_for(d, name), "main", &spec_info);
  auto result =
      d.device.createComputePipeline(d.cache, vk::ComputePipelineCreateInfo({}, stage, d.layout));
  if (result.result != vk::Result::eSuccess) {
    throw abi::StatusError(OI_STATUS_INTERNAL,
                           "pipeline " + name + ": " + vk::to_string(result.result));
  }
  d.pipelines.emplace(key, result.value);
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
  vk::PhysicalDeviceFeatures features;
  features.shaderFloat64 = p.caps.f64;
  features.shaderInt64 = p.caps.i64;
  d.device = p.handle.createDevice(vk::DeviceCreateInfo({}, queue_info, {}, {}, &features));
  d.queue = d.device.getQueue(p.queue_family, 0);
  d.command_pool = d.device.createCommandPool(vk::CommandPoolCreateInfo(
      vk::CommandPoolCreateFlagBits::eResetCommandBuffer, p.queue_family));
  d.cmd = d.device.allocateCommandBuffers(
      vk::CommandBufferAllocateInfo(d.command_pool, vk::CommandBufferLevel::ePrimary, 1))[0];
  d.fence = d.device.createFence({});
  std::vector<vk::DescriptorSetLayoutBinding> bindings;
  for (uint32_t b = 0; b < kDataBindings + 1; ++b) {
    bindings.emplace_back(b, vk::DescriptorType::eStorageBuffer, 1,
                          vk::ShaderStageFlagBits::eCompute);
  }
  d.set_layout =
      d.device.createDescriptorSetLayout(vk::DescriptorSetLayoutCreateInfo({}, bindings));
  d.layout = d.device.createPipelineLayout(vk::PipelineLayoutCreateInfo({}, d.set_layout));
  vk::DescriptorPoolSize pool_size(vk::DescriptorType::eStorageBuffer, kDataBindings + 1);
  d.descriptors = d.device.createDescriptorPool(vk::DescriptorPoolCreateInfo({}, 1, pool_size));
  open_pipeline_cache(d);
  d.staging = make_allocation(d, kStagingBytes, true);
  d.params = make_allocation(d, 4096, true);
}

void destroy_device(oi_device& d) {
  if (!d.device) return;
  d.device.waitIdle();
  if (d.cache) store_pipeline_cache(d);
  for (auto& [key, pipeline] : d.pipelines) d.device.destroyPipeline(pipeline);
  for (auto& [name, module] : d.modules) d.device.destroyShaderModule(module);
  release(d, d.staging);
  release(d, d.params);
  for (auto& [size, alloc] : d.free_pool) release(d, alloc);
  d.free_pool.clear();
  if (d.cache) d.device.destroyPipelineCache(d.cache);
  if (d.descriptors) d.device.destroyDescriptorPool(d.descriptors);
  if (d.layout) d.device.destroyPipelineLayout(d.layout);
  if (d.set_layout) d.device.destroyDescriptorSetLayout(d.set_layout);
  if (d.fence) d.device.destroyFence(d.fence);
  if (d.command_pool) d.device.destroyCommandPool(d.command_pool);
  d.device.destroy();
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
  const std::string variant = job.shader + (fc ? "_fc" : ieee ? "_ieee" : "");
  vk::Pipeline pipeline = pipeline_for(d, variant, job.spec);

  const vk::DeviceSize param_bytes = job.params.size() * 4;
  if (param_bytes > d.params.size) {
    release(d, d.params);
    d.params = make_allocation(d, param_bytes, true);
  }
  std::memcpy(d.params.mapped, job.params.data(), param_bytes);

  std::array<vk::DescriptorBufferInfo, kDataBindings + 1> infos;
  infos[0] = vk::DescriptorBufferInfo(d.params.buffer, 0, VK_WHOLE_SIZE);
  for (size_t i = 0; i < kDataBindings; ++i) {
    const oi_buffer* b = job.buffers[i] ? job.buffers[i] : job.buffers[job.output];
    if (b->alloc.size > d.phys->caps.max_storage_range) {
      throw abi::StatusError(OI_STATUS_UNIMPLEMENTED,
                             "buffer larger than the device's maxStorageBufferRange (" +
                                 std::to_string(d.phys->caps.max_storage_range) + " bytes)");
    }
    infos[i + 1] = vk::DescriptorBufferInfo(b->alloc.buffer, 0, VK_WHOLE_SIZE);
  }
  d.device.resetDescriptorPool(d.descriptors);
  vk::DescriptorSet set = d.device.allocateDescriptorSets(
      vk::DescriptorSetAllocateInfo(d.descriptors, d.set_layout))[0];
  std::array<vk::WriteDescriptorSet, kDataBindings + 1> writes;
  for (uint32_t i = 0; i < kDataBindings + 1; ++i) {
    writes[i] = vk::WriteDescriptorSet(set, i, 0, 1, vk::DescriptorType::eStorageBuffer, nullptr,
                                       &infos[i]);
  }
  d.device.updateDescriptorSets(writes, {});
  submit_and_wait(d, [&](vk::CommandBuffer cmd) {
    cmd.bindPipeline(vk::PipelineBindPoint::eCompute, pipeline);
    cmd.bindDescriptorSets(vk::PipelineBindPoint::eCompute, d.layout, 0, set, {});
    cmd.dispatch(job.groups[0], job.groups[1], job.groups[2]);
  });
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
    destroy_device(*device);
  } catch (...) {  // nothing to report to: the device goes away regardless
  }
  delete device;
}

oi_status* buffer_alloc(oi_device* device, uint64_t bytes, oi_buffer** out_buffer) {
  OI_ABI_TRY
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
    a = make_allocation(*device, size, false);
    lock.lock();
  }
  *out_buffer = new oi_buffer{a, bytes};
  // New (and reused) buffers read as zero, as the CPU backend's do.
  submit_and_wait(*device,
                  [&](vk::CommandBuffer cmd) { cmd.fillBuffer(a.buffer, 0, VK_WHOLE_SIZE, 0); });
  OI_ABI_CATCH(host())
}

void buffer_free(oi_device* device, oi_buffer* buffer) {
  if (buffer == nullptr) return;
  // Kept for reuse up to a bound, so that a model's worth of per-node temporaries stays
  // allocated but a burst of large buffers does not pin device memory for good.
  constexpr vk::DeviceSize kPoolBytes = vk::DeviceSize{1} << 30;
  {
    std::lock_guard lock(device->mutex);
    const vk::DeviceSize size = buffer->alloc.size;
    if (buffer->alloc.buffer && device->free_pool_bytes + size <= kPoolBytes &&
        device->free_pool.size() < 4096) {
      device->free_pool.emplace(size, buffer->alloc);
      device->free_pool_bytes += size;
      delete buffer;
      return;
    }
  }
  release(*device, buffer->alloc);
  delete buffer;
}

oi_status* buffer_upload(oi_device* device, oi_buffer* buffer, uint64_t offset, const void* src,
                         uint64_t bytes) {
  OI_ABI_TRY
  check_range(buffer, offset, bytes, "upload");
  oi_device& d = *device;
  std::lock_guard lock(d.mutex);
  for (uint64_t done = 0; done < bytes; done += kStagingBytes) {
    const uint64_t n = std::min<uint64_t>(kStagingBytes, bytes - done);
    std::memcpy(d.staging.mapped, static_cast<const std::byte*>(src) + done, n);
    submit_and_wait(d, [&](vk::CommandBuffer cmd) {
      cmd.copyBuffer(d.staging.buffer, buffer->alloc.buffer, vk::BufferCopy(0, offset + done, n));
    });
  }
  OI_ABI_CATCH(host())
}

oi_status* buffer_download(oi_device* device, oi_buffer* buffer, uint64_t offset, void* dst,
                           uint64_t bytes) {
  OI_ABI_TRY
  check_range(buffer, offset, bytes, "download");
  oi_device& d = *device;
  std::lock_guard lock(d.mutex);
  for (uint64_t done = 0; done < bytes; done += kStagingBytes) {
    const uint64_t n = std::min<uint64_t>(kStagingBytes, bytes - done);
    submit_and_wait(d, [&](vk::CommandBuffer cmd) {
      cmd.copyBuffer(buffer->alloc.buffer, d.staging.buffer, vk::BufferCopy(offset + done, 0, n));
    });
    std::memcpy(static_cast<std::byte*>(dst) + done, d.staging.mapped, n);
  }
  OI_ABI_CATCH(host())
}

oi_status* synchronize(oi_device*) {
  return nullptr;
}  // every call already waited

}  // namespace oi::vulkan
