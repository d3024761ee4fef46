// The second pass of attention_split.comp: merges the chunks' partial results of each query row
// (max m_c, weight sum l_c, NaN seen, weighted V sums a_c) into y = sum(a_c * e_c) / sum(l_c *
// e_c) with e_c = exp(m_c - max m): one workgroup per row, one invocation per output column.
// A row whose chunks saw no visible key gives 0; a NaN seen anywhere makes the row NaN.
// The workgroup first finds the row's max and NaN flag (each invocation over every 128th chunk,
// then over the 128 results in shared memory: a max is the same in any order), then takes the
// chunks 128 at a time: invocation i computes e_c for chunk i into shared memory, and every
// invocation sums its column over the chunks in order, its loads eight chunks at a time (one
// load in flight per chunk made this pass as long as the first).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#include "float_controls.glsl"
#include "half_formats.glsl"
#include "attention_fast.glsl"

layout(local_size_x = 128) in;

const uint WG = 128u;
shared float chunk_e[WG], chunk_l[WG];  // e_c (-1: a chunk without a visible key) and l_c

void main() {
  const uint Tq = p[0], Dv = p[3], rows = Tq * p[4], chunks = p[10], stride = p[11];
  const uint t = gl_LocalInvocationIndex, col = t;
  for (uint row = gl_WorkGroupID.x; row < rows; row += gl_NumWorkGroups.x) {
    const uint first = row * chunks * stride;
    float m = NEG_INF;
    bool nan_seen = false;
    for (uint c = t; c < chunks; c += WG) {
      m = max(m, part[first + c * stride]);
      nan_seen = nan_seen || part[first + c * stride + 2u] != 0.0;
    }
    chunk_e[t] = m;
    chunk_l[t] = nan_seen ? 1.0 : 0.0;
    barrier();
    [[unroll]] for (uint i = 0u; i < WG; ++i) {
      m = max(m, chunk_e[i]);
      nan_seen = nan_seen || chunk_l[i] != 0.0;
    }
    barrier();  // chunk_e and chunk_l are rewritten below
    float total = 0.0, acc = 0.0;
    if (m != NEG_INF) {  // the same for the whole workgroup
      for (uint c0 = 0u; c0 < chunks; c0 += WG) {
        const uint n = min(WG, chunks - c0);
        if (t < n) {
          const uint at = first + (c0 + t) * stride;
          const float mc = part[at];
          chunk_e[t] = mc == NEG_INF ? -1.0 : exp(mc - m);
          chunk_l[t] = part[at + 1u];
        }
        barrier();
        if (col < Dv) {
          const uint base = first + c0 * stride + 4u + col;
          uint i = 0u;
          for (; i + 8u <= n; i += 8u) {
            float a[8];
            [[unroll]] for (uint u = 0u; u < 8u; ++u) a[u] = part[base + (i + u) * stride];
            [[unroll]] for (uint u = 0u; u < 8u; ++u) {
              const float e = chunk_e[i + u];
              if (e < 0.0) continue;
              total += chunk_l[i + u] * e;
              acc += a[u] * e;
            }
          }
          for (; i < n; ++i) {
            const float e = chunk_e[i];
            if (e < 0.0) continue;
            total += chunk_l[i] * e;
            acc += part[base + i * stride] * e;
          }
        }
        barrier();
      }
    }
    if (col < Dv) {
      store(p[9] + row * Dv + col, nan_seen ? nan_value() : total > 0.0 ? acc / total : 0.0);
    }
  }
}
