#include "vk_memory.hpp"

#include <algorithm>
#include <functional>
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

namespace {

// A buffer bound to new memory of the type pick_type chooses among the allowed ones (a bit
// mask), mapped when `map`.
Allocation allocate(vk::Device device, vk::DeviceSize size,
                    const std::function<uint32_t(uint32_t)>& pick_type, bool map) {
  Allocation a;
  a.size = std::max<vk::DeviceSize>(size, 4);
  a.buffer = device.createBuffer(vk::BufferCreateInfo({}, a.size,
                                                      vk::BufferUsageFlagBits::eStorageBuffer |
                                                          vk::BufferUsageFlagBits::eTransferSrc |
                                                          vk::BufferUsageFlagBits::eTransferDst));
  const auto req = device.getBufferMemoryRequirements(a.buffer);
  try {
    a.memory =
        device.allocateMemory(vk::MemoryAllocateInfo(req.size, pick_type(req.memoryTypeBits)));
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
    if (map) a.mapped = device.mapMemory(a.memory, 0, VK_WHOLE_SIZE);
  } catch (...) {
    release(device, a);
    throw;
  }
  return a;
}

}  // namespace

Allocation make_allocation(vk::Device device, const vk::PhysicalDeviceMemoryProperties& memory,
                           vk::DeviceSize size, bool host_visible) {
  using M = vk::MemoryPropertyFlagBits;
  return allocate(
      device, size,
      [&](uint32_t allowed) {
        return host_visible ? find_memory_type(memory, allowed, M::eHostVisible | M::eHostCoherent,
                                               M::eHostCached)
                            : find_memory_type(memory, allowed, M::eDeviceLocal, {});
      },
      host_visible);
}

Allocation make_uncached_host_allocation(vk::Device device,
                                         const vk::PhysicalDeviceMemoryProperties& memory,
                                         vk::DeviceSize size) {
  using M = vk::MemoryPropertyFlagBits;
  return allocate(
      device, size,
      [&](uint32_t allowed) {
        for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
          const auto flags = memory.memoryTypes[i].propertyFlags;
          if ((allowed & (1u << i)) && (flags & M::eHostVisible) && (flags & M::eHostCoherent) &&
              !(flags & M::eHostCached) && !(flags & M::eDeviceLocal)) {
            return i;
          }
        }
        return find_memory_type(memory, allowed, M::eHostVisible | M::eHostCoherent, {});
      },
      true);
}

Allocation make_mapped_device_allocation(vk::Device device,
                                         const vk::PhysicalDeviceMemoryProperties& memory,
                                         vk::DeviceSize size) {
  using M = vk::MemoryPropertyFlags;
  const M want = vk::MemoryPropertyFlagBits::eDeviceLocal |
                 vk::MemoryPropertyFlagBits::eHostVisible |
                 vk::MemoryPropertyFlagBits::eHostCoherent;
  return allocate(
      device, size,
      [&](uint32_t allowed) {
        for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
          const auto& t = memory.memoryTypes[i];
          if ((allowed & (1u << i)) && (t.propertyFlags & want) == want &&
              memory.memoryHeaps[t.heapIndex].size > (vk::DeviceSize{256} << 20)) {
            return i;
          }
        }
        throw abi::StatusError(OI_STATUS_UNAVAILABLE,
                               "no resizable-BAR memory (device-local and host-visible)");
      },
      true);
}

void release(vk::Device device, Allocation& a) {
  if (a.buffer) device.destroyBuffer(a.buffer);
  if (a.memory) device.freeMemory(a.memory);
  a = {};
}

}  // namespace oi::vulkan
