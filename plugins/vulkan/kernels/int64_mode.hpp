// Which SPIR-V runs a kernel's i64/u64 ops: the native build (shaderInt64) or the _emu build
// (int64_emulated.glsl: 32-bit words, no Int64 capability). OPENINFER_VULKAN_INT64 =
// emulate | native | auto (default auto: _emu where the device lacks shaderInt64) forces it,
// e.g. to test the emulation on a device that has int64.
#pragma once

#include <string>

#include "../backend.hpp"

namespace oi::vulkan {

// True where the i64/u64 ops run emulated. A bad value, or native on a device without
// shaderInt64, is an INVALID_ARGUMENT error naming the variable.
bool int64_emulated(const DeviceCaps& caps);

// `shader`, with "_emu" appended where int64_emulated(caps).
std::string int64_shader(const std::string& shader, const DeviceCaps& caps);

}  // namespace oi::vulkan
