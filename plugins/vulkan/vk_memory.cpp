#include "vk_memory.hpp"

#include <algorithm>
#include <string>

#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

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

}  // namespace

Allocation make_allocation(vk::Device device, const vk::PhysicalDeviceMemoryProperties& memory,
                           vk::DeviceSize size, bool host_visible) {
  Allocation a;
  a.size = std::max<vk::DeviceSize>(size, 4);
  a.buffer = device.createBuffer(vk::BufferCreateInfo({}, a.size,
                                                      vk::BufferUsageFlagBits::eStorageBuffer |
                                                          vk::BufferUsageFlagBits::eTransferSrc |
                                                          vk::BufferUsageFlagBits::eTransferDst));
  const auto req = device.getBufferMemoryRequirements(a.buffer);
  using M = vk::MemoryPropertyFlagBits;
  try {
    const uint32_t type = host_visible
                              ? find_memory_type(memory, req.memoryTypeBits,
                                                 M::eHostVisible | M::eHostCoherent, M::eHostCached)
                              : find_memory_type(memory, req.memoryTypeBits, M::eDeviceLocal, {});
    a.memory = device.allocateMemory(vk::MemoryAllocateInfo(req.size, type));
  } catch (const vk::SystemError&) {
    device.destroyBuffer(a.buffer);
    throw abi::StatusError(OI_STATUS_OUT_OF_MEMORY,
                           "Vulkan allocation of " + std::to_string(size) + " bytes failed");
  } catch (...) {
    device.destroyBuffer(a.buffer);
    throw;
  }
  try {
    device.bindBufferMemory(a.buffer, a.memory, 0);
    if (host_visible) a.mapped = device.mapMemory(a.memory, 0, VK_WHOLE_SIZE);
  } catch (...) {
    release(device, a);
    throw;
  }
  return a;
}

void release(vk::Device device, Allocation& a) {
  if (a.buffer) device.destroyBuffer(a.buffer);
  if (a.memory) device.freeMemory(a.memory);
  a = {};
}

}  // namespace oi::vulkan
