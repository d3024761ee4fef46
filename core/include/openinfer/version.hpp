#pragma once

#include <cstdint>

namespace oi {
inline constexpr const char* kVersion = "0.1.0";
// The plugin C ABI version this host implements (plugin_api/include/openinfer/plugin_abi.h).
inline constexpr uint32_t kPluginAbiVersion = 1;
}  // namespace oi
