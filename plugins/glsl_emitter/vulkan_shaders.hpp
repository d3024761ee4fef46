// The Vulkan backend's shader sources (plugins/vulkan/shaders), embedded at build time, and
// their SPIR-V variants as the backend's *.variants files list them, for the generated program
// (docs/synth-glsl.md, "The Vulkan backend's shaders").
#pragma once

#include <string>
#include <vector>

namespace oi::glsl {

struct ShaderVariant {
  std::string name;     // "ew_math_fc"
  std::string source;   // "ew.comp"
  std::string defines;  // "-DMATH_F64 -DFLOAT_CONTROLS ..."
};

// The variant `name`, or null when the backend lists none of that name.
const ShaderVariant* shader_variant(const std::string& name);

// The text of one of the backend's shader files ("div_f32.glsl"), its #include lines as they
// are; throws where there is none of that name.
const char* shader_file(const std::string& name);

// A source and the .glsl files it includes, recursively: (file name, text).
std::vector<std::pair<std::string, std::string>> shader_sources(const std::string& source);

}  // namespace oi::glsl
