#include "int64_mode.hpp"

#include <string_view>

#include "tuning_env.hpp"

namespace oi::vulkan {

bool int64_emulated(const DeviceCaps& caps) {
  constexpr const char* kName = "OPENINFER_VULKAN_INT64";
  const char* text = tuning_env(kName);
  const std::string_view mode = text != nullptr ? text : "auto";
  if (mode == "emulate") return true;
  if (mode == "auto") return !caps.i64;
  if (mode != "native")
    bad_tuning("i64", kName, "is '" + std::string(mode) + "' (emulate, native or auto)");
  if (!caps.i64) bad_tuning("i64", kName, "is native, but the device lacks shaderInt64");
  return false;
}

std::string int64_shader(const std::string& shader, const DeviceCaps& caps) {
  return int64_emulated(caps) ? shader + "_emu" : shader;
}

}  // namespace oi::vulkan
