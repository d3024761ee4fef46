// The Vulkan plugin's kernel table. kernels/<op>.cpp add entries with a static registration;
// each names the device capability it needs, and the table holds only the entries that
// device 0 (the picked device) supports.
#pragma once

#include <cstdint>
#include <vector>

#include "backend.hpp"

namespace oi::vulkan {

// f64 needs shaderFloat64; i64/u64 need nothing (emulated in 32-bit words without shaderInt64).
enum class Needs { Nothing, F64 };

struct VulkanKernel {
  const char* op;
  std::vector<uint32_t> inputs;
  uint32_t output;
  oi_kernel_mode mode;
  Needs needs;
  oi_kernel_fn run;
};

std::vector<VulkanKernel>& kernel_list();

struct KernelRegistration {
  explicit KernelRegistration(void (*add)(std::vector<VulkanKernel>&)) { add(kernel_list()); }
};

// What `dtype` needs from a device (f64 needs shaderFloat64).
Needs needs_for(uint32_t dtype);

// The ABI view for a device with `caps` (nullptr: no device, no kernels). Built once.
const std::vector<oi_kernel_def>& kernel_defs(const DeviceCaps* caps);

}  // namespace oi::vulkan
