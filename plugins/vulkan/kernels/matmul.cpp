// matmul f32: [..., M, K] x [..., K, N] -> [..., M, N] with numpy batch broadcasting (ops.md),
// on shaders/matmul_tiled.comp. Dot products accumulate in f32 in tile order (within the matmul
// tolerance of ops.md). Not registered in place: tiles would overwrite operands still read.
#include <limits>

#include "elementwise.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

constexpr uint32_t kTile = 64;  // the output tile of shaders/matmul_tiled.comp

// For each output batch, the matrix index of a and of b (0 strides on broadcast batch dims).
std::vector<uint32_t> batch_table(const oi_tensor_desc& a, const oi_tensor_desc& b,
                                  const oi_tensor_desc& out, uint64_t batches) {
  const uint32_t rank = out.rank - 2;
  auto strides = [&](const oi_tensor_desc& t) {
    std::vector<uint64_t> s(rank, 0);
    uint64_t stride = 1;
    for (uint32_t k = 0; k + 2 < t.rank; ++k) {
      const uint32_t td = t.rank - 3 - k, od = rank - 1 - k;
      if (t.dims[td] != 1) s[od] = stride;
      stride *= t.dims[td];
    }
    return s;
  };
  const auto sa = strides(a), sb = strides(b);
  std::vector<uint32_t> table;
  table.reserve(2 * batches);
  for (uint64_t i = 0; i < batches; ++i) {
    uint64_t rest = i, ia = 0, ib = 0;
    for (uint32_t d = rank; d-- > 0;) {
      const uint64_t c = rest % out.dims[d];
      rest /= out.dims[d];
      ia += c * sa[d];
      ib += c * sb[d];
    }
    table.push_back(fit32(ia));
    table.push_back(fit32(ib));
  }
  return table;
}

oi_status* matmul_f32(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& a = call->inputs[0];
  const oi_tensor_desc& b = call->inputs[1];
  const oi_tensor_desc& out = call->outputs[0];
  const uint64_t M = a.dims[a.rank - 2], K = a.dims[a.rank - 1], N = b.dims[b.rank - 1];
  uint64_t batches = 1;
  for (uint32_t d = 0; d + 2 < out.rank; ++d) batches *= out.dims[d];
  if (M == 0 || N == 0 || batches == 0) return nullptr;
  fit32(batches * M * N);
  fit32(M * K * batches);
  const uint64_t gx = (N + kTile - 1) / kTile, gy = (M + kTile - 1) / kTile;
  if (gx > 65535 || gy > 65535) {
    throw abi::StatusError(OI_STATUS_UNIMPLEMENTED, "vulkan matmul: M or N above 4194240");
  }
  Dispatch job;
  job.shader = "matmul_f32";
  job.float_width = 32;
  job.params = {fit32(M),       fit32(K),       fit32(N),         fit32(batches),
                word_offset(a), word_offset(b), word_offset(out), 0};
  const auto table = batch_table(a, b, out, batches);
  job.params.insert(job.params.end(), table.begin(), table.end());
  job.buffers = {a.buffer, b.buffer, out.buffer};
  job.groups = {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy),
                static_cast<uint32_t>(std::min<uint64_t>(batches, 65535))};
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void register_matmul(std::vector<VulkanKernel>& list) {
  list.push_back({"matmul",
                  {OI_DTYPE_F32, OI_DTYPE_F32},
                  OI_DTYPE_F32,
                  OI_KERNEL_MODE_NORMAL,
                  Needs::Nothing,
                  &matmul_f32});
}

const KernelRegistration registration(register_matmul);

}  // namespace
}  // namespace oi::vulkan
