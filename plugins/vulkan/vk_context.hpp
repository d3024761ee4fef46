// Vulkan instance and physical devices, shared by instance.cpp and device.cpp: the only files
// that include vulkan.hpp (it is heavy to compile).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <vulkan/vulkan.hpp>
#include "backend.hpp"

namespace oi::vulkan {

struct PhysicalDevice {
  vk::PhysicalDevice handle;
  std::string name;  // deviceName plus what the device offers, for oi_device_info.name
  uint32_t api_version = 0;
  uint32_t queue_family = 0;
  vk::PhysicalDeviceType type{};
  DeviceCaps caps;
  std::vector<uint32_t> dtypes;
  uint64_t memory_bytes = 0;
};

struct Context {
  std::unique_ptr<vk::DynamicLoader> loader;
  vk::Instance instance;
  std::vector<PhysicalDevice> devices;  // the picked device first
  std::string summary;
  ~Context();
};

// Created on first use; never throws (problems end up in summary with no devices).
Context& context();

}  // namespace oi::vulkan
