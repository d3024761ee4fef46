// The driver's statistics of each compute pipeline (VK_KHR_pipeline_executable_properties), for
// tuning shaders: with OPENINFER_VULKAN_PIPELINE_STATS=1 and a device that has the extension,
// every pipeline is created with its statistics captured and one line per pipeline goes to the
// host's log (INFO), e.g. "pipeline matmul_coop [16,16,16,...]: Register Count 128, ...". What a
// driver reports is its own (NVIDIA: registers, shared memory; lavapipe: instructions). Without
// the variable, or where the device lacks the extension, nothing changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.hpp>

namespace oi::vulkan {

// Whether statistics are asked for (the variable) and the device can give them: then the
// extension and its feature must be enabled at device creation.
bool pipeline_stats_wanted(vk::PhysicalDevice pd);

// Logs the statistics of every executable of `pipeline` (created with
// eCaptureStatisticsKHR); a driver's refusal is logged, never thrown.
void log_pipeline_stats(vk::Device device, vk::Pipeline pipeline, const std::string& name,
                        const std::vector<uint32_t>& spec);

}  // namespace oi::vulkan
