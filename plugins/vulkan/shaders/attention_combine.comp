// The second pass of attention_split.comp: merges the chunks' partial results of each query row
// (max m_c, weight sum l_c, NaN seen, weighted V sums a_c) into y = sum(a_c * e_c) / sum(l_c *
// e_c) with e_c = exp(m_c - max m): one workgroup per row, one invocation per output column.
// A row whose chunks saw no visible key gives 0; a NaN seen anywhere makes the row NaN.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#include "attention_fast.glsl"

layout(local_size_x = 128) in;

void main() {
  const uint Tq = p[0], Dv = p[3], rows = Tq * p[4], chunks = p[10], stride = p[11];
  const uint col = gl_LocalInvocationIndex;
  if (col >= Dv) return;
  for (uint row = gl_WorkGroupID.x; row < rows; row += gl_NumWorkGroups.x) {
    const uint first = row * chunks * stride;
    float m = NEG_INF;
    bool nan_seen = false;
    for (uint c = 0u; c < chunks; ++c) {
      m = max(m, part[first + c * stride]);
      nan_seen = nan_seen || part[first + c * stride + 2u] != 0.0;
    }
    float total = 0.0, acc = 0.0;
    if (m != NEG_INF) {
      for (uint c = 0u; c < chunks; ++c) {
        const uint at = first + c * stride;
        if (part[at] == NEG_INF) continue;  // no visible key in the chunk
        const float e = exp(part[at] - m);
        total += part[at + 1u] * e;
        acc += part[at + 4u + col] * e;
      }
    }
    store(p[9] + row * Dv + col,
          nan_seen ? nan_value() : total > 0.0 ? acc / total : 0.0);
  }
}
