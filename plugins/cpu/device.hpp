// The CPU backend's device and buffer functions (the oi_backend_api slots).
#pragma once

#include "openinfer/plugin_abi.h"

namespace oi::cpu {

oi_status* device_count(void* context, uint32_t* out_count);
oi_status* device_get_info(void* context, uint32_t index, oi_device_info* out_info);
oi_status* device_open(void* context, uint32_t index, oi_device** out_device);
void device_close(oi_device* device);
oi_status* buffer_alloc(oi_device* device, uint64_t bytes, oi_buffer** out_buffer);
void buffer_free(oi_device* device, oi_buffer* buffer);
oi_status* buffer_upload(oi_device* device, oi_buffer* buffer, uint64_t offset, const void* src,
                         uint64_t bytes);
oi_status* buffer_download(oi_device* device, oi_buffer* buffer, uint64_t offset, void* dst,
                           uint64_t bytes);
oi_status* synchronize(oi_device* device);
oi_status* buffer_copy(oi_device* device, oi_buffer* src, uint64_t src_offset, oi_buffer* dst,
                       uint64_t dst_offset, uint64_t bytes);
oi_status* buffer_wrap_host(oi_device* device, void* host_memory, uint64_t bytes,
                            oi_buffer** out_buffer);
oi_status* buffer_host_pointer(oi_device* device, oi_buffer* buffer, void** out_pointer);

}  // namespace oi::cpu
