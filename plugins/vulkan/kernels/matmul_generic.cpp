// matmul for every catalog dtype but f32 (matmul.cpp) on shaders/matmul_generic.comp: f8, f16
// and bf16 summed in f32 in k order and rounded once (the CPU backend's order, so its bits on a
// device that keeps subnormals), f64 in f64 (shaderFloat64), integers wrapping at the output
// width (the acc= one when given: the inputs sign- or zero-extended to it), i64/u64 as word
// pairs (no shaderInt64 needed), bool as or-of-ands and bitset as u8. Tiles of 16 x 16 outputs
// (4 x 64 for M <= 4) with k slices in shared memory, one output an invocation: exact rather
// than fast (no register blocking as in the f32 path). In place through a scratch buffer
// (run_matmul).
#include <algorithm>

#include "elementwise.hpp"
#include "ew_ops.hpp"
#include "matmul_shared.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

// matmul_generic.comp's workgroup: a tile of kTileRows x (kWorkgroup / kTileRows) outputs, or
// of kSmallTileRows rows where M is that small (decoding: one row's products fill no tile).
constexpr uint32_t kWorkgroup = 256, kTileRows = 16, kSmallTileRows = 4;

// The grid along M or N: at most 65535 workgroups (the least maxComputeWorkGroupCount Vulkan
// allows); matmul_generic.comp takes the tiles past it round again.
uint32_t grid(uint64_t size, uint32_t tile) {
  return static_cast<uint32_t>(std::min<uint64_t>((size + tile - 1) / tile, 65535));
}

bool is_float(uint32_t dtype) {
  return dtype == OI_DTYPE_F16 || dtype == OI_DTYPE_BF16 || dtype == OI_DTYPE_F8 ||
         dtype == OI_DTYPE_F32;
}

void matmul_generic_into(const oi_kernel_call& call) {
  const oi_tensor_desc& a = call.inputs[0];
  const oi_tensor_desc& b = call.inputs[1];
  const oi_tensor_desc& out = call.outputs[0];
  const MatmulShape s = matmul_shape(call);
  if (matmul_coop_into(call, s)) return;  // f16 on tensor cores, where the device has them
  const int in_code = wide_dtype_code(a.dtype), out_code = wide_dtype_code(out.dtype);
  if (in_code < 0 || out_code < 0 || b.dtype != a.dtype) {
    unsupported("matmul: no shader for these dtypes");
  }
  const bool f64 = a.dtype == OI_DTYPE_F64;
  if (f64 && !caps_of(call.device).f64) declined("this device lacks 64-bit shader arithmetic");
  Dispatch job;
  job.shader = f64 ? "matmul_generic_f64" : "matmul_generic";
  job.float_width = f64 ? 64 : is_float(a.dtype) ? 32 : 0;
  const uint32_t tile_rows = s.M <= kSmallTileRows ? kSmallTileRows : kTileRows;
  job.spec = {static_cast<uint32_t>(in_code), static_cast<uint32_t>(out_code), 0, tile_rows};
  job.params = {fit32(s.outputs(), "an element count"),
                fit32(s.M, "a dimension"),
                fit32(s.K, "a dimension"),
                fit32(s.N, "a dimension"),
                element_start(a),
                element_start(b),
                element_start(out),
                fit32(s.batches, "a batch count")};
  const auto table = batch_table(call, s.batches);
  job.params.insert(job.params.end(), table.begin(), table.end());
  job.buffers = {a.buffer, b.buffer, out.buffer};
  job.groups = {grid(s.N, kWorkgroup / tile_rows), grid(s.M, tile_rows),
                static_cast<uint32_t>(std::min<uint64_t>(s.batches, 65535))};  // z strides
  run_dispatch(call.device, job);
}

oi_status* matmul_generic(const oi_kernel_call* call) {
  OI_ABI_TRY
  run_matmul(*call, &matmul_generic_into);
  OI_ABI_CATCH(call->host)
}

// op_catalog.json's matmul dtypes less f32 (matmul.cpp), normal and in place, and its acc=
// pairs (the same table as the elementwise ops': accumulate_targets).
void register_matmul_generic(std::vector<VulkanKernel>& list) {
  const std::vector<uint32_t> dtypes = {OI_DTYPE_F8,   OI_DTYPE_BF16,   OI_DTYPE_F16, OI_DTYPE_F64,
                                        OI_DTYPE_I8,   OI_DTYPE_I16,    OI_DTYPE_I32, OI_DTYPE_I64,
                                        OI_DTYPE_U8,   OI_DTYPE_U16,    OI_DTYPE_U32, OI_DTYPE_U64,
                                        OI_DTYPE_BOOL, OI_DTYPE_BITSET, OI_DTYPE_I1,  OI_DTYPE_I2,
                                        OI_DTYPE_I4,   OI_DTYPE_U1,     OI_DTYPE_U2,  OI_DTYPE_U4};
  for (uint32_t t : dtypes) {
    const Needs needs = t == OI_DTYPE_F64 ? Needs::F64 : Needs::Nothing;
    for (oi_kernel_mode mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
      list.push_back({"matmul", {t, t}, t, mode, needs, &matmul_generic});
    }
    for (uint32_t acc : accumulate_targets(t)) {
      list.push_back(
          {"matmul", {t, t}, acc, OI_KERNEL_MODE_ACCUMULATE, Needs::Nothing, &matmul_generic});
    }
  }
}

const KernelRegistration registration(register_matmul_generic);

}  // namespace
}  // namespace oi::vulkan
