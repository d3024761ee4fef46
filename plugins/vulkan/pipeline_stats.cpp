#include "pipeline_stats.hpp"

#include <cstdlib>
#include <cstring>

#include "openinfer/plugin_abi.hpp"
#include "vk_context.hpp"

namespace oi::vulkan {
namespace {

std::string value_text(const vk::PipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case vk::PipelineExecutableStatisticFormatKHR::eBool32:
      return s.value.b32 ? "true" : "false";
    case vk::PipelineExecutableStatisticFormatKHR::eInt64:
      return std::to_string(s.value.i64);
    case vk::PipelineExecutableStatisticFormatKHR::eUint64:
      return std::to_string(s.value.u64);
    case vk::PipelineExecutableStatisticFormatKHR::eFloat64:
      return std::to_string(s.value.f64);
  }
  return "?";
}

}  // namespace

bool pipeline_stats_wanted(vk::PhysicalDevice pd) {
  const char* env = std::getenv("OPENINFER_VULKAN_PIPELINE_STATS");
  if (env == nullptr || std::strcmp(env, "1") != 0) return false;
  for (const auto& e : pd.enumerateDeviceExtensionProperties()) {
    if (std::strcmp(e.extensionName.data(), VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) ==
        0) {
      return true;
    }
  }
  return false;
}

void log_pipeline_stats(vk::Device device, vk::Pipeline pipeline, const std::string& name,
                        const std::vector<uint32_t>& spec) {
  std::string line = "pipeline " + name + " [";
  for (size_t i = 0; i < spec.size(); ++i) line += (i ? "," : "") + std::to_string(spec[i]);
  line += "]:";
  try {
    const auto executables =
        device.getPipelineExecutablePropertiesKHR(vk::PipelineInfoKHR(pipeline));
    for (uint32_t i = 0; i < executables.size(); ++i) {
      const auto stats =
          device.getPipelineExecutableStatisticsKHR(vk::PipelineExecutableInfoKHR(pipeline, i));
      for (const auto& s : stats) {
        line += std::string(" ") + s.name.data() + " " + value_text(s) + ";";
      }
    }
  } catch (const vk::SystemError& e) {
    line += std::string(" no statistics (") + e.what() + ")";
  }
  abi::log(host(), OI_LOG_INFO, line.c_str());
}

}  // namespace oi::vulkan
