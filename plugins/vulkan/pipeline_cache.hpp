// The VkPipelineCache on disk, one file per device and driver, so that later processes skip the
// driver's shader compilation. Directory: $OPENINFER_VULKAN_CACHE_DIR, else
// $XDG_CACHE_HOME/openinfer/vulkan, else ~/.cache/openinfer/vulkan.
//
// File: "OIVKPC01", the payload's size and FNV-1a hash (u64 each, little-endian), then the
// payload: vkGetPipelineCacheData's bytes. A file is used only when all of that checks out and
// the payload's VkPipelineCacheHeaderVersionOne names this device's vendor, device and
// pipelineCacheUUID; anything else (missing, short, corrupt, another driver's) is ignored, so a
// damaged file costs a recompile, never a crash. Saving writes a temporary file and renames it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include <vulkan/vulkan.hpp>

namespace oi::vulkan {

// Where this device's cache lives; empty when no directory is known.
std::filesystem::path pipeline_cache_path(const vk::PhysicalDeviceProperties& props);

// The payload saved for this device, or nothing when the file is unusable.
std::vector<uint8_t> load_pipeline_cache(const std::filesystem::path& path,
                                         const vk::PhysicalDeviceProperties& props);

// Writes `payload`; gives up silently on any error (the cache is an optimisation).
void save_pipeline_cache(const std::filesystem::path& path, const std::vector<uint8_t>& payload);

}  // namespace oi::vulkan
