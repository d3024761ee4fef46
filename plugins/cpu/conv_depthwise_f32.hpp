// The f32 depthwise conv fast path (conv_float.hpp calls it for every conv whose output
// channels each read one input channel): AVX2+FMA, 8 output columns per vector, chosen at run
// time since the plugin is built for generic x86-64.
#pragma once

#include "conv_geometry.hpp"

namespace oi::cpu {

// y [N, M, P] = depthwise conv(x, w) + bias (nullptr: none), any kernel size, stride, dilation
// and pads. Returns false, writing nothing, where the CPU lacks AVX2 or FMA (the caller then
// runs its portable loops). Products are fused into the sums (fma), so results may differ from
// the portable loops in the last bits, within ops-nn.md's conv tolerance.
bool depthwise_f32_avx2(const float* x, const float* w, const float* bias, float* y,
                        const ConvShape& s);

}  // namespace oi::cpu
