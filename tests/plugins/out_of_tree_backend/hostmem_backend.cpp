// `hostmem`: a complete backend plugin in one file, the template for third-party backends
// (README.md, docs/plugin-abi.md). Its "device" is plain host memory and it has two kernels,
// f32 `add` and `mul`, each in normal and in-place mode: enough for examples/minimal/minimal.oi,
// y = 5 * (x + a). Everything else runs on the host's fallback backend (the CPU plugin), and
// so does any call these kernels decline (operands of different shapes: no broadcasting here).
//
// The ABI rules it follows: one exported symbol; every table starts with struct_size and
// abi_version; no C++ exception crosses the boundary (OI_ABI_TRY / OI_ABI_CATCH); errors are
// statuses made by the host; messages go through the host's log, not stderr.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "openinfer/plugin_abi.hpp"

// The ABI's opaque handles are this plugin's own types.
struct oi_buffer {
  std::vector<unsigned char> bytes;
};
struct oi_device {
  uint64_t kernel_calls = 0;
};

namespace {

namespace abi = oi::abi;

const oi_host_api* g_host = nullptr;  // from openinfer_plugin_init; valid while loaded

// ---- Devices -------------------------------------------------------------------------------

const uint32_t kDtypes[] = {OI_DTYPE_F32};

oi_status* device_count(void*, uint32_t* out_count) {
  *out_count = 1;
  return nullptr;
}

oi_status* device_get_info(void*, uint32_t index, oi_device_info* out_info) {
  if (index != 0) return abi::make_status(g_host, OI_STATUS_NOT_FOUND, "hostmem has one device");
  oi_device_info info{};
  info.name = "hostmem (host memory)";
  info.features = OI_FEATURE_HOST_MEMORY;  // no OI_FEATURE_CONCURRENT_KERNELS: calls take turns
  info.dtypes = kDtypes;
  info.num_dtypes = 1;
  abi::write_versioned(out_info, info);  // only the bytes the host's struct_size covers
  return nullptr;
}

oi_status* device_open(void*, uint32_t index, oi_device** out_device) {
  OI_ABI_TRY
  if (index != 0) throw abi::StatusError(OI_STATUS_NOT_FOUND, "hostmem has one device");
  *out_device = new oi_device{};
  abi::log(g_host, OI_LOG_DEBUG, "device opened");
  OI_ABI_CATCH(g_host)
}

void device_close(oi_device* device) {
  if (device == nullptr) return;
  try {  // a void function of the ABI: nothing may escape, not even std::bad_alloc
    abi::log(g_host, OI_LOG_DEBUG,
             "device closed after " + std::to_string(device->kernel_calls) + " kernel calls");
  } catch (...) {
  }
  delete device;
}

// ---- Buffers: the host checks every offset and size against the buffer first --------------

oi_status* buffer_alloc(oi_device*, uint64_t bytes, oi_buffer** out_buffer) {
  OI_ABI_TRY
  *out_buffer = new oi_buffer{std::vector<unsigned char>(bytes)};
  OI_ABI_CATCH(g_host)  // std::bad_alloc becomes OI_STATUS_OUT_OF_MEMORY
}

void buffer_free(oi_device*, oi_buffer* buffer) {
  delete buffer;
}

oi_status* buffer_upload(oi_device*, oi_buffer* buffer, uint64_t offset, const void* src,
                         uint64_t bytes) {
  if (bytes > 0) std::memcpy(buffer->bytes.data() + offset, src, bytes);
  return nullptr;
}

oi_status* buffer_download(oi_device*, oi_buffer* buffer, uint64_t offset, void* dst,
                           uint64_t bytes) {
  if (bytes > 0) std::memcpy(dst, buffer->bytes.data() + offset, bytes);
  return nullptr;
}

oi_status* synchronize(oi_device*) {
  return nullptr;  // kernels run to completion inside their call
}

// Host-addressable memory: kernels get oi_tensor_desc.host_data.
oi_status* buffer_host_pointer(oi_device*, oi_buffer* buffer, void** out_pointer) {
  *out_pointer = buffer->bytes.data();
  return nullptr;
}

// (ABI 2) Copies inside the device: persistent tables and transfers stay in its memory.
oi_status* buffer_copy(oi_device*, oi_buffer* src, uint64_t src_offset, oi_buffer* dst,
                       uint64_t dst_offset, uint64_t bytes) {
  if (bytes > 0)
    std::memmove(dst->bytes.data() + dst_offset, src->bytes.data() + src_offset, bytes);
  return nullptr;
}

// ---- Kernels -------------------------------------------------------------------------------

// One elementwise f32 op over operands of one shape. A call this kernel cannot take (numpy
// broadcasting, which the op allows) is declined before anything is written: the host then
// runs that call on its fallback backend.
template <class Op>
oi_status* binary_f32(const oi_kernel_call* call) {
  OI_ABI_TRY
  const oi_tensor_desc& a = call->inputs[0];
  const oi_tensor_desc& b = call->inputs[1];
  const oi_tensor_desc& out = call->outputs[0];
  const uint64_t n = abi::element_count(out);
  if (abi::element_count(a) != n || abi::element_count(b) != n) {
    throw abi::StatusError(OI_STATUS_DECLINED, "hostmem: no broadcasting");
  }
  call->device->kernel_calls += 1;
  // host_data may be unaligned and, in place, out aliases an input: element by element.
  const auto* pa = static_cast<const unsigned char*>(a.host_data);
  const auto* pb = static_cast<const unsigned char*>(b.host_data);
  auto* po = static_cast<unsigned char*>(out.host_data);
  for (uint64_t i = 0; i < n; ++i) {
    float x, y;
    std::memcpy(&x, pa + 4 * i, 4);
    std::memcpy(&y, pb + 4 * i, 4);
    const float z = Op{}(x, y);
    std::memcpy(po + 4 * i, &z, 4);
  }
  OI_ABI_CATCH(call->host)
}

struct Add {
  float operator()(float x, float y) const { return x + y; }
};
struct Mul {
  float operator()(float x, float y) const { return x * y; }
};

const uint32_t kF32F32[] = {OI_DTYPE_F32, OI_DTYPE_F32};

// A kernel is data: {op, input dtypes, output dtype, mode, function}.
oi_kernel_def kernel(const char* op, oi_kernel_mode mode, oi_kernel_fn run) {
  oi_kernel_def d{};
  d.struct_size = sizeof(d);
  d.abi_version = OI_PLUGIN_ABI_VERSION;
  d.op = op;
  d.input_dtypes = kF32F32;
  d.num_inputs = 2;
  d.output_dtype = OI_DTYPE_F32;
  d.mode = mode;
  d.run = run;
  return d;
}

const oi_kernel_def kKernels[] = {
    kernel("add", OI_KERNEL_MODE_NORMAL, binary_f32<Add>),
    kernel("add", OI_KERNEL_MODE_INPLACE, binary_f32<Add>),
    kernel("mul", OI_KERNEL_MODE_NORMAL, binary_f32<Mul>),
    kernel("mul", OI_KERNEL_MODE_INPLACE, binary_f32<Mul>),
};

oi_backend_api backend_table() {
  oi_backend_api api{};
  api.struct_size = sizeof(api);
  api.abi_version = OI_PLUGIN_ABI_VERSION;
  api.device_count = device_count;
  api.device_get_info = device_get_info;
  api.device_open = device_open;
  api.device_close = device_close;
  api.buffer_alloc = buffer_alloc;
  api.buffer_free = buffer_free;
  api.buffer_upload = buffer_upload;
  api.buffer_download = buffer_download;
  api.synchronize = synchronize;
  api.kernels = kKernels;
  api.num_kernels = sizeof kKernels / sizeof kKernels[0];
  api.buffer_wrap_host = nullptr;  // optional: zero-copy views of host memory
  api.buffer_host_pointer = buffer_host_pointer;
  api.buffer_copy = buffer_copy;
  return api;
}

}  // namespace

// The one exported symbol.
extern "C" OI_PLUGIN_EXPORT oi_status* openinfer_plugin_init(uint32_t host_abi_version,
                                                             const oi_host_api* host,
                                                             oi_plugin_info* out_info) {
  OI_ABI_TRY
  g_host = host;
  if (host_abi_version < 2) {  // it relies on ABI 2: DECLINED, the log
    return abi::make_status(host, OI_STATUS_INCOMPATIBLE, "hostmem needs a host of plugin ABI 2");
  }
  static const oi_backend_api backend = backend_table();
  oi_plugin_info info{};
  info.kind = OI_PLUGIN_KIND_BACKEND;
  info.score = 1;
  info.name = "hostmem";
  info.version = "0.1.0";
  info.description = "template backend: host memory, f32 add and mul";
  info.backend = &backend;
  abi::write_versioned(out_info, info);
  OI_ABI_CATCH(host)
}
