// What the matmul kernels (matmul.cpp: f32; matmul_generic.cpp: every other dtype) share: the
// shape of a call, the per-batch matrix table of the shaders' params, and in-place staging.
#pragma once

#include <cstdint>
#include <vector>

#include "../kernel_registry.hpp"

namespace oi::vulkan {

// [..., M, K] x [..., K, N] -> [..., M, N]; batches: the product of the output's batch dims.
struct MatmulShape {
  uint64_t M = 0, K = 0, N = 0, batches = 1;
  uint64_t outputs() const { return batches * M * N; }
};
MatmulShape matmul_shape(const oi_kernel_call& call);

// For each output batch, the matrix index of a and of b (0 on broadcast batch dims), as the
// (a, b) word pairs the matmul shaders read from params word 8 on.
std::vector<uint32_t> batch_table(const oi_kernel_call& call, uint64_t batches);

// Runs `compute` (which records its dispatches, throwing on failure) for `call`. Where the
// output overlaps an operand (in place), the result is computed into a scratch buffer first
// and then copied over the output, so no operand is overwritten while still being read.
void run_matmul(const oi_kernel_call& call, void (*compute)(const oi_kernel_call&));

}  // namespace oi::vulkan
