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

// The first element's index in the tensor's buffer (packed tensors start on a byte), checked
// with the tensor's last element to stay a 32-bit shader index (two words an 8-byte element).
uint32_t element_start(const oi_tensor_desc& t);

// f16 matmul on tensor cores (matmul_coop.cpp): records it and returns true where the device
// has them and the call is one it takes (OPENINFER_VULKAN_COOPMAT), else returns false.
bool matmul_coop_into(const oi_kernel_call& call, const MatmulShape& shape);

// Runs `compute` (which records its dispatches, throwing on failure) for `call`. Where the
// output overlaps an operand (in place), the result is computed into a scratch buffer first
// and then copied over the output, so no operand is overwritten while still being read.
void run_matmul(const oi_kernel_call& call, void (*compute)(const oi_kernel_call&));

}  // namespace oi::vulkan
