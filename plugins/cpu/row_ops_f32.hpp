// f32 fast paths of softmax, log_softmax, layer_norm and rms_norm over contiguous rows (the
// normalized axes are the trailing ones and every operand is f32): AVX2+FMA, chosen at run time
// since the plugin is built for generic x86-64, rows split evenly over oneTBB's workers. Each
// returns false, writing nothing, where the CPU lacks AVX2 or FMA; the callers (softmax.hpp,
// norm.hpp) then run their portable loops. Results may differ from those loops in the last bits
// (a polynomial e^x within ~1 ulp, fused multiply-adds, sums in 8 lanes), within ops-nn.md's
// tolerance for these ops.
#pragma once

#include <cstdint>

namespace oi::cpu {

// y[r] = softmax(x[r]) (log_softmax with `log`) for each of `rows` rows of `len` values.
bool softmax_rows_f32(const float* x, float* y, uint64_t rows, uint64_t len, bool log);

// y[r] = (x[r] - mean) / sqrt(var + eps) * scale [+ bias] (layer_norm; bias may be nullptr),
// or with `rms` x[r] / sqrt(mean(x[r]^2) + eps) * scale (bias unused).
bool norm_rows_f32(const float* x, const float* scale, const float* bias, float* y, uint64_t rows,
                   uint64_t len, float eps, bool rms);

}  // namespace oi::cpu
