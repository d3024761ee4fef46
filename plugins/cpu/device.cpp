// The CPU device: one device, buffers in host memory (64-byte aligned), zero-copy wrapping of
// host memory such as a memory-mapped model file.
#include "device.hpp"

#include <cstring>
#include <new>
#include <string>
#include <thread>

#include "blas_matmul.hpp"
#include "cpu_status.hpp"
#include "openinfer/plugin_abi.hpp"

struct oi_buffer {
  std::byte* data;
  uint64_t size;
  bool owned;  // false for wrapped host memory
};

struct oi_device {
  int unused = 0;
};

namespace oi::cpu {
namespace {

constexpr std::align_val_t kBufferAlignment{64};

const uint32_t kDeviceDtypes[] = {OI_DTYPE_F32, OI_DTYPE_F64, OI_DTYPE_I8,  OI_DTYPE_I16,
                                  OI_DTYPE_I32, OI_DTYPE_I64, OI_DTYPE_U8,  OI_DTYPE_U16,
                                  OI_DTYPE_U32, OI_DTYPE_U64, OI_DTYPE_BOOL};

// Probes the calling thread's float mode: true when a subnormal product becomes zero.
bool flushes_subnormals() {
  volatile float smallest_normal = 1.17549435e-38f;
  volatile float half = 0.5f;
  float product = smallest_normal * half;  // 2^-127, subnormal
  return product == 0.0f;
}

const std::string& device_name() {
  static const std::string name =
      "cpu (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads, " +
      blas_kernel_name() + ")";
  return name;
}

oi_device the_device;

bool check_range(const oi_buffer* buffer, uint64_t offset, uint64_t bytes) {
  return offset <= buffer->size && bytes <= buffer->size - offset;
}

}  // namespace

oi_status* device_count(void*, uint32_t* out_count) {
  *out_count = 1;
  return nullptr;
}

oi_status* device_get_info(void*, uint32_t index, oi_device_info* out_info) {
  if (index != 0) return abi::make_status(host(), OI_STATUS_NOT_FOUND, "cpu has one device");
  oi_device_info info{};
  info.name = device_name().c_str();
  info.features = OI_FEATURE_F64 | OI_FEATURE_I64 | OI_FEATURE_HOST_MEMORY |
                  OI_FEATURE_WRAP_HOST_MEMORY | OI_FEATURE_CONCURRENT_KERNELS |
                  (flushes_subnormals() ? OI_FEATURE_FLUSHES_SUBNORMALS : 0);
  info.dtypes = kDeviceDtypes;
  info.num_dtypes = sizeof(kDeviceDtypes) / sizeof(kDeviceDtypes[0]);
  abi::write_versioned(out_info, info);
  return nullptr;
}

oi_status* device_open(void*, uint32_t index, oi_device** out_device) {
  if (index != 0) return abi::make_status(host(), OI_STATUS_NOT_FOUND, "cpu has one device");
  blas_single_threaded();
  *out_device = &the_device;
  return nullptr;
}

void device_close(oi_device*) {}

oi_status* buffer_alloc(oi_device*, uint64_t bytes, oi_buffer** out_buffer) {
  OI_ABI_TRY
  auto* data = static_cast<std::byte*>(::operator new(bytes ? bytes : 1, kBufferAlignment));
  std::memset(data, 0, bytes);
  *out_buffer = new oi_buffer{data, bytes, true};
  OI_ABI_CATCH(host())
}

void buffer_free(oi_device*, oi_buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->owned) ::operator delete(buffer->data, kBufferAlignment);
  delete buffer;
}

oi_status* buffer_upload(oi_device*, oi_buffer* buffer, uint64_t offset, const void* src,
                         uint64_t bytes) {
  if (!check_range(buffer, offset, bytes)) {
    return abi::make_status(host(), OI_STATUS_INVALID_ARGUMENT, "upload outside the buffer");
  }
  if (bytes) std::memcpy(buffer->data + offset, src, bytes);
  return nullptr;
}

oi_status* buffer_download(oi_device*, oi_buffer* buffer, uint64_t offset, void* dst,
                           uint64_t bytes) {
  if (!check_range(buffer, offset, bytes)) {
    return abi::make_status(host(), OI_STATUS_INVALID_ARGUMENT, "download outside the buffer");
  }
  if (bytes) std::memcpy(dst, buffer->data + offset, bytes);
  return nullptr;
}

oi_status* buffer_copy(oi_device*, oi_buffer* src, uint64_t src_offset, oi_buffer* dst,
                       uint64_t dst_offset, uint64_t bytes) {
  if (!check_range(src, src_offset, bytes) || !check_range(dst, dst_offset, bytes)) {
    return abi::make_status(host(), OI_STATUS_INVALID_ARGUMENT, "copy outside a buffer");
  }
  if (bytes) std::memmove(dst->data + dst_offset, src->data + src_offset, bytes);
  return nullptr;
}

oi_status* synchronize(oi_device*) {
  return nullptr;
}  // kernels run synchronously

oi_status* buffer_wrap_host(oi_device*, void* host_memory, uint64_t bytes, oi_buffer** out_buffer) {
  OI_ABI_TRY
  if (host_memory == nullptr && bytes != 0) {
    return abi::make_status(host(), OI_STATUS_INVALID_ARGUMENT, "wrap of a null pointer");
  }
  *out_buffer = new oi_buffer{static_cast<std::byte*>(host_memory), bytes, false};
  OI_ABI_CATCH(host())
}

oi_status* buffer_host_pointer(oi_device*, oi_buffer* buffer, void** out_pointer) {
  *out_pointer = buffer->data;
  return nullptr;
}

}  // namespace oi::cpu
