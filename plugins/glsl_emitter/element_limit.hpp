// The device's element limit (limits.max_elements, docs/devices.md): the Vulkan backend's
// shaders address a tensor with 32-bit sizes, indices and strides, so a kernel touching a tensor
// of more elements than the description allows (at most 2^31 - 1) is refused through the one
// device-limit path, naming the key.
#pragma once

#include "plan_input.hpp"

namespace oi::glsl {

// Refuses (device_limit, "limits.max_elements N") kernel `k` where its grid or a value one of
// its ops reads or writes (a table's entry, a window's entries) has more than
// device.max_elements elements.
void check_element_limit(const PlanIn& plan, const DeviceIn& device, const KernelIn& k);

// The key and value a refusal names ("limits.max_elements 2147483647").
std::string element_limit_key(const DeviceIn& device);

}  // namespace oi::glsl
