// Everything the glsl target writes for one plan: the shaders, manifest.json (buffers,
// bindings, dispatch order with workgroup counts, barriers, host-side loops and branches), the
// host program and a CMakeLists.txt that compiles the shaders with glslc and builds it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "embedded_weights.hpp"
#include "plan_input.hpp"

namespace oi::glsl {

struct OutputFile {
  std::string path;
  std::string data;
};

// Throws oi::abi::StatusError (UNIMPLEMENTED / INVALID_ARGUMENT) for what it cannot express.
// `model` gives the scalars settings name (resolve_settings); without it only @init values
// and size variables are resolved. `embed` (--embed-weights): the model's tensors, those the
// plan reads compiled into the host program.
std::vector<OutputFile> write_output(const std::string& plan_json, const std::string& device_json,
                                     const std::string& name, const ModelScalar& model = {},
                                     const std::vector<ModelTensor>* embed = nullptr);

}  // namespace oi::glsl
