// The f32 conv fast path for few output cells (a streaming model's per-step convs: Silero VAD's
// STFT and encoder, 1 to 4 frames each): AVX2+FMA dot products of the weights' rows, read in
// place, with the patch columns of the cells, chosen at run time since the plugin is built for
// generic x86-64.
#pragma once

#include <cstdint>

#include "conv_geometry.hpp"

namespace oi::cpu {

// Output planes of at most this many cells take the path.
inline constexpr uint64_t kSmallConvCells = 16;

// y [N, M, P] = conv(x, w) + bias (nullptr: none) for P <= kSmallConvCells, any kernel, stride,
// dilation, pads and group. Per image and group the patch matrix is built transposed (one
// zero-padded row of K values per cell), then each pair of weight rows is multiplied with up to
// four cells at a time, every weight read once per four cells. Returns false, writing nothing,
// where the CPU lacks AVX2 or FMA. Products are fused into the sums and summed in eight
// partial sums, an order other than the portable loops', within ops-nn.md's conv tolerance.
bool conv_small_f32(const float* x, const float* w, const float* bias, float* y,
                    const ConvShape& s);

}  // namespace oi::cpu
