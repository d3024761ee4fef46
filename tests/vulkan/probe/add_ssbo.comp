// vulkan_dispatch_probe: y = a + b over p[0] f32 words, parameters read from a storage buffer
// at binding 0 as the backend's shaders do (count, rank, a/b/y word offsets at p[0], p[2..4]).
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };
layout(std430, binding = 3) buffer Y { float y[]; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < p[0]) y[p[4] + i] = a[p[2] + i] + b[p[3] + i];
}
