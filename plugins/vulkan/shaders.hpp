// The plugin's SPIR-V modules, compiled by glslc at build time and embedded by
// cmake/embed_spirv.cmake (the generated shaders_spirv.cpp defines spirv_code).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace oi::vulkan {

struct SpirvCode {
  const uint32_t* words;
  size_t count;  // words
};

// {nullptr, 0} for an unknown name. Names: the variants listed in CMakeLists.txt.
SpirvCode spirv_code(std::string_view name);

}  // namespace oi::vulkan
