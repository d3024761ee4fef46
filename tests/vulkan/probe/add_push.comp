// vulkan_dispatch_probe: add_ssbo.comp with the parameters in push constants.
#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform Params { uint p[8]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };
layout(std430, binding = 3) buffer Y { float y[]; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < p[0]) y[p[4] + i] = a[p[2] + i] + b[p[3] + i];
}
