// f32 arithmetic and comparisons that stay exact where the device flushes subnormals (Vulkan
// lets a driver without DenormPreserve do so: NVIDIA's does): GLSL helpers for the own writers.
#pragma once

namespace oi::glsl {

// oi_eq/oi_ne/oi_lt/oi_le/oi_gt/oi_ge on the bits (NaN: only ne holds; -0 == +0), oi_add,
// oi_sub and oi_mul: the hardware result where no operand is subnormal and the result is
// normal (or zero, inf, NaN from such operands), else computed exactly from the bits.
extern const char* const kExactF32Helpers;

}  // namespace oi::glsl
