// gelu(x) = x * Phi(x) with the exact erf (ops-nn.md), f32 on the cpu backend.
#include <cmath>
#include <cstring>

#include <openinfer/plugin_abi.hpp>

namespace {

constexpr const char* kSchemas = R"({"gelu_erf": {"category": "numerical", "inputs": 1,
  "settings": [], "output_dtype": "input0", "output_shape": "input0", "broadcast": false,
  "inplace": true, "dtypes": ["f32"]}})";

oi_status* gelu_f32(const oi_kernel_call* call) {
  OI_ABI_TRY
  const auto* in = static_cast<const unsigned char*>(call->inputs[0].host_data);
  auto* out = static_cast<unsigned char*>(call->outputs[0].host_data);
  for (uint64_t i = 0, n = oi::abi::element_count(call->outputs[0]); i < n; ++i) {
    float x;
    std::memcpy(&x, in + 4 * i, 4);
    float y = 0.5f * x * (1.0f + std::erf(x * 0.70710678f));
    std::memcpy(out + 4 * i, &y, 4);
  }
  OI_ABI_CATCH(call->host)
}

const uint32_t kF32[] = {OI_DTYPE_F32};
const oi_kernel_def kKernels[] = {{sizeof(oi_kernel_def), OI_PLUGIN_ABI_VERSION, "gelu_erf", kF32,
                                   1, OI_DTYPE_F32, OI_KERNEL_MODE_NORMAL, 0, gelu_f32, nullptr}};
const oi_kernels_api kApi{
    sizeof(oi_kernels_api), OI_PLUGIN_ABI_VERSION, "cpu", kSchemas, kKernels, 1, 0};

}  // namespace

extern "C" OI_PLUGIN_EXPORT oi_status* openinfer_plugin_init(uint32_t, const oi_host_api* host,
                                                             oi_plugin_info* out) {
  OI_ABI_TRY
  oi_plugin_info info{};
  info.kind = OI_PLUGIN_KIND_KERNELS;
  info.name = "gelu";
  info.version = "0.1.0";
  info.kernels = &kApi;
  oi::abi::write_versioned(out, info);
  OI_ABI_CATCH(host)
}
