// The device's shape limits (docs/devices.md): the Vulkan backend's shaders address a tensor
// with 32-bit sizes, indices and strides (limits.max_elements, at most 2^31 - 1), hold ranks up
// to 8 in their movement and reduction kernels (limits.max_rank) and attention head dims up to
// 1024 (limits.max_head_dim). A kernel past a limit the description gives is refused through
// the one device-limit path, naming the key.
#pragma once

#include <string>

#include "plan_input.hpp"

namespace oi::glsl {

// Refuses (device_limit) kernel `k` where its grid or a value one of its ops reads or writes (a
// table's entry, a window's entries) has more than device.max_elements elements; where the
// description asks for a rank below the shaders' 8, a tensor of higher rank; where it asks for
// a head dim below their 1024, an attention of a larger one. (At 8 and 1024 the backend's
// kernels decline themselves and vulkan_kernels.cpp names the keys; the own elementwise
// writers take any rank.)
void check_shape_limits(const PlanIn& plan, const DeviceIn& device, const KernelIn& k);

// The key and value a refusal names ("limits.max_elements 2147483647").
std::string element_limit_key(const DeviceIn& device);

}  // namespace oi::glsl
