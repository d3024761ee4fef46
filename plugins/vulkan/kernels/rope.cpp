// rope(x, pos) of ops-nn.md on shaders/rope.comp for f32, f16, bf16 and f64 (the rope_f64
// variant, shaderFloat64; pos i32 or i64): the host reads pos back, computes the call's T x D/2
// angles and their cos/sin in f64 (an f32 angle is ~1e-3 rad off beyond a few thousand
// positions) and uploads them as f32 pairs (f64 pairs for f64).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "elementwise.hpp"
#include "ew_ops.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

[[noreturn]] void fail(oi_status_code code, const std::string& why) {
  throw abi::StatusError(code, "rope: " + why);
}

void check(oi_status* status) {
  if (status == nullptr) return;
  const std::string what = host()->status_message ? host()->status_message(status) : "";
  if (host()->status_free) host()->status_free(status);
  fail(OI_STATUS_INTERNAL, what);
}

oi_status* rope_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& x = call->inputs[0];
  const oi_tensor_desc& pos_t = call->inputs[1];
  const oi_tensor_desc& out = call->outputs[0];
  if (x.rank < 2) fail(OI_STATUS_INVALID_ARGUMENT, "x needs rank >= 2");
  const uint64_t T = x.dims[x.rank - 2], D = x.dims[x.rank - 1];
  if (D % 2 != 0)
    fail(OI_STATUS_INVALID_ARGUMENT, "the last dim must be even, got " + std::to_string(D));
  const uint64_t count = abi::element_count(x);
  if (count == 0) return nullptr;
  const uint64_t half = D / 2;
  if (x.byte_offset % dtype_bytes(x.dtype) != 0 || out.byte_offset % dtype_bytes(out.dtype) != 0) {
    fail(OI_STATUS_DECLINED, "byte offsets must be multiples of the element size");
  }
  int64_t pos = 0;
  if (pos_t.dtype == OI_DTYPE_I32) {
    int32_t p32 = 0;
    check(buffer_download(call->device, pos_t.buffer, pos_t.byte_offset, &p32, 4));
    pos = p32;
  } else {
    check(buffer_download(call->device, pos_t.buffer, pos_t.byte_offset, &pos, 8));
  }
  const double theta = abi::setting_float(*call, "theta", 10000.0);
  std::vector<double> table(2 * T * half);
  for (uint64_t i = 0; i < half; ++i) {
    const double freq = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(D));
    for (uint64_t t = 0; t < T; ++t) {
      const double angle = (static_cast<double>(pos) + static_cast<double>(t)) * freq;
      table[2 * (t * half + i)] = std::cos(angle);
      table[2 * (t * half + i) + 1] = std::sin(angle);
    }
  }
  const bool f64 = x.dtype == OI_DTYPE_F64;
  std::vector<float> table32;
  if (!f64) table32.assign(table.begin(), table.end());
  const void* table_data = f64 ? static_cast<const void*>(table.data()) : table32.data();
  const uint64_t table_bytes = table.size() * (f64 ? 8 : 4);
  oi_buffer* tb = nullptr;
  check(buffer_alloc(call->device, table_bytes, &tb));
  struct Free {  // the table goes when the call ends, thrown or not
    oi_device* d;
    oi_buffer* b;
    ~Free() { buffer_free(d, b); }
  } release{call->device, tb};
  check(buffer_upload(call->device, tb, 0, table_data, table_bytes));
  Dispatch job;
  job.shader = f64 ? "rope_f64" : "rope";
  job.float_width = f64 ? 64 : 32;
  job.spec = {static_cast<uint32_t>(f64 ? 0 : ew_dtype_code(x.dtype))};
  job.params = {fit32(count / 2),
                fit32(T),
                fit32(half),
                abi::setting_bool(*call, "interleaved", false) ? 1u : 0u,
                fit32(x.byte_offset / dtype_bytes(x.dtype)),
                fit32(out.byte_offset / dtype_bytes(out.dtype))};
  fit32(job.params[5] + count + 2);
  job.buffers[0] = x.buffer;
  job.buffers[1] = tb;
  job.buffers[2] = out.buffer;
  job.groups[0] = std::min<uint32_t>(fit32((count / 2 + 255) / 256), 65535);
  run_dispatch(call->device, job);
  OI_ABI_CATCH(call->host)
}

void register_rope(std::vector<VulkanKernel>& list) {
  for (uint32_t t : dtype_union({kEwFloats, kEwF8, {OI_DTYPE_F64}})) {
    for (uint32_t p : {OI_DTYPE_I32, OI_DTYPE_I64}) {
      for (oi_kernel_mode mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
        list.push_back({"rope", {t, p}, t, mode, needs_for(t), &rope_kernel});
      }
    }
  }
}

const KernelRegistration registration(register_rope);

}  // namespace
}  // namespace oi::vulkan
