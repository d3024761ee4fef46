// Whether a matmul's operands hold a subnormal f32: sets flag[0] to 1 if any of the a_count
// words from a_off in A, or b_count from b_off in B, is one (it never writes 0: the buffer comes
// zeroed). On devices that may flush subnormals, kernels/matmul.cpp runs it before the two
// passes of matmul_tiled.comp (-DPASS_FAST, -DPASS_CAREFUL), which read the flag.
// Each invocation has 8 loads in flight before it tests any (the scan is bandwidth-bound).
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;

// p: a_off, a_count, b_off, b_count (words).
layout(std430, binding = 0) restrict readonly buffer Params { uint p[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) buffer Flag { uint flag[]; };

const uint UNROLL = 8u;

// Exponent bits 0 and a fraction other than 0, as one unsigned compare.
bool subnormal(uint bits) {
  return (bits & 0x7fffffffu) - 1u < 0x7fffffu;
}

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint a_off = p[0], a_count = p[1], b_off = p[2], b_count = p[3];
  bool found = false;
  for (uint base = gl_GlobalInvocationID.x; base < max(a_count, b_count); base += UNROLL * stride) {
    uint wa[UNROLL], wb[UNROLL];
    [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
      const uint i = base + u * stride;
      wa[u] = i < a_count ? a[a_off + i] : 0u;
      wb[u] = i < b_count ? b[b_off + i] : 0u;
    }
    [[unroll]] for (uint u = 0u; u < UNROLL; ++u) found = found || subnormal(wa[u]) || subnormal(wb[u]);
  }
  if (found) flag[0] = 1u;
}
