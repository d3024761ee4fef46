// The glsl emitter's only ways to stop short of a program (issue #18, docs/synth-glsl.md
// "Refusals"). tests/repo/check_plugin_structure.py checks that every refusal in
// plugins/glsl_emitter goes through one of them:
//  - device_limit: the target device lacks something the graph needs, named by its key in the
//    device description (oi::emit::refuse_device_limit, plugin_api/.../device_limit.hpp);
//  - invalid_plan: the plan or the device description is malformed, something the planner and
//    the validator never produce (INVALID_ARGUMENT);
//  - glsl_gap: a construct the target does not cover yet; `gap` is a key of the list
//    GLSL_OPEN_GAPS in the structure test and of the table in docs/synth-glsl.md.
#pragma once

#include <string>
#include <string_view>

#include "openinfer/plugin_abi.h"

namespace oi::glsl {

struct DeviceIn;

// "glsl emitter: WHERE: NEEDS, which the device 'NAME' does not offer (KEY)"; `key` is the
// description's setting with the value that refuses ("features.fp64 false").
[[noreturn]] void device_limit(const DeviceIn& device, const std::string& where,
                               const std::string& needs, std::string_view key);
// Throws oi::abi::StatusError(INVALID_ARGUMENT, "glsl emitter: " + what).
[[noreturn]] void invalid_plan(const std::string& what);
// Throws oi::abi::StatusError(UNIMPLEMENTED, "glsl emitter: " + what + " (open gap GAP)").
[[noreturn]] void glsl_gap(std::string_view gap, const std::string& what);

// Not a refusal: the emitter's own writers (shader_writer.cpp, ops_math.cpp, shader_common.cpp)
// leave a kernel they do not cover to the Vulkan backend's kernels (write_kernel() in
// output_writer.cpp catches it). UNIMPLEMENTED, "glsl emitter: " + what.
[[noreturn]] void decline(const std::string& what);
// In a catch block: the exception being handled again, its message after "glsl emitter: " +
// `context` + ": ", with its status (write_kernel: why the own writers declined, then why the
// Vulkan backend's kernels refused).
[[noreturn]] void rethrow_with_context(const std::string& context);

}  // namespace oi::glsl
