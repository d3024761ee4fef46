// Buffers with their own memory allocation: device-local ones for tensors, host-visible ones
// (mapped for good) for dispatch parameters and transfer staging.
#pragma once

#include "vk_context.hpp"

namespace oi::vulkan {

struct Allocation {
  vk::Buffer buffer;
  vk::DeviceMemory memory;
  vk::DeviceSize size = 0;
  void* mapped = nullptr;  // host-visible ones only
};

// A storage and transfer buffer of at least `size` bytes (Vulkan has no empty buffers). Throws
// abi::StatusError (OI_STATUS_OUT_OF_MEMORY) when the driver refuses the memory.
Allocation make_allocation(vk::Device device, const vk::PhysicalDeviceMemoryProperties& memory,
                           vk::DeviceSize size, bool host_visible);

// A host-visible buffer in device-local memory that the host writes straight over the bus
// (resizable BAR: a device-local, host-visible memory type whose heap is larger than the 256 MiB
// of a plain BAR). Throws abi::StatusError (OI_STATUS_UNAVAILABLE) when the device has none.
Allocation make_mapped_device_allocation(vk::Device device,
                                         const vk::PhysicalDeviceMemoryProperties& memory,
                                         vk::DeviceSize size);

// A host-visible, host-coherent buffer in memory the host does not cache (write-combined where
// the device offers such a type; else as make_allocation's host-visible one): the host's writes
// stream out without reading lines into its cache first.
Allocation make_uncached_host_allocation(vk::Device device,
                                         const vk::PhysicalDeviceMemoryProperties& memory,
                                         vk::DeviceSize size);

// Destroys the buffer and frees (and so unmaps) its memory; `a` is empty afterwards.
void release(vk::Device device, Allocation& a);

}  // namespace oi::vulkan
