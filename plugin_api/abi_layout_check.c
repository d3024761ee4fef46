/* Freezes the ABI layouts of plugin_abi.h (LP64), version by version. A failing assert here
 * means a field was moved, removed or resized: append new fields after the last "DO NOT MODIFY
 * ABOVE" line instead, and add their checks below under a new version heading. One version
 * number is one layout: the "v1 size" of a struct is what the version 1 header declared, so a
 * reader of an ABI 1 writer never touches a byte past it. */
#include <stddef.h>

#include "openinfer/plugin_abi.h"

#define OI_CHECK(type, field, offset) \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field " moved: the ABI is frozen")
/* The size a struct had in an ABI version: the end of its last field of that version. */
#define OI_END_OF(type, field) (offsetof(type, field) + sizeof(((type*)0)->field))

/*===---------------------------------- ABI version 1 ----------------------------------===*/

_Static_assert(OI_STATUS_OUT_OF_MEMORY == 7, "status codes of ABI 1");

OI_CHECK(oi_host_api, status_create, 8);
OI_CHECK(oi_host_api, status_free, 32);
_Static_assert(OI_END_OF(oi_host_api, status_free) == 40, "oi_host_api v1 size");

OI_CHECK(oi_tensor_desc, dtype, 8);
OI_CHECK(oi_tensor_desc, rank, 12);
OI_CHECK(oi_tensor_desc, dims, 16);
OI_CHECK(oi_tensor_desc, buffer, 24);
OI_CHECK(oi_tensor_desc, byte_offset, 32);
OI_CHECK(oi_tensor_desc, host_data, 40);
_Static_assert(OI_END_OF(oi_tensor_desc, host_data) == 48, "oi_tensor_desc v1 size");

OI_CHECK(oi_setting, name, 8);
OI_CHECK(oi_setting, type, 16);
OI_CHECK(oi_setting, int_value, 24);
OI_CHECK(oi_setting, float_value, 32);
OI_CHECK(oi_setting, string_value, 40);
OI_CHECK(oi_setting, list_values, 48);
OI_CHECK(oi_setting, list_length, 56);
_Static_assert(OI_END_OF(oi_setting, list_length) == 64, "oi_setting v1 size");

OI_CHECK(oi_kernel_call, host, 8);
OI_CHECK(oi_kernel_call, device, 16);
OI_CHECK(oi_kernel_call, kernel, 24);
OI_CHECK(oi_kernel_call, inputs, 32);
OI_CHECK(oi_kernel_call, outputs, 40);
OI_CHECK(oi_kernel_call, settings, 48);
OI_CHECK(oi_kernel_call, num_inputs, 56);
OI_CHECK(oi_kernel_call, num_settings, 64);
_Static_assert(OI_END_OF(oi_kernel_call, reserved) == 72, "oi_kernel_call v1 size");

OI_CHECK(oi_kernel_def, op, 8);
OI_CHECK(oi_kernel_def, input_dtypes, 16);
OI_CHECK(oi_kernel_def, num_inputs, 24);
OI_CHECK(oi_kernel_def, output_dtype, 28);
OI_CHECK(oi_kernel_def, mode, 32);
OI_CHECK(oi_kernel_def, run, 40);
OI_CHECK(oi_kernel_def, user_data, 48);
_Static_assert(OI_END_OF(oi_kernel_def, user_data) == 56, "oi_kernel_def v1 size");

OI_CHECK(oi_device_info, name, 8);
OI_CHECK(oi_device_info, features, 16);
OI_CHECK(oi_device_info, dtypes, 24);
OI_CHECK(oi_device_info, num_dtypes, 32);
OI_CHECK(oi_device_info, memory_bytes, 40);
_Static_assert(OI_END_OF(oi_device_info, memory_bytes) == 48, "oi_device_info v1 size");

OI_CHECK(oi_backend_api, device_count, 8);
OI_CHECK(oi_backend_api, device_get_info, 16);
OI_CHECK(oi_backend_api, device_open, 24);
OI_CHECK(oi_backend_api, device_close, 32);
OI_CHECK(oi_backend_api, buffer_alloc, 40);
OI_CHECK(oi_backend_api, buffer_free, 48);
OI_CHECK(oi_backend_api, buffer_upload, 56);
OI_CHECK(oi_backend_api, buffer_download, 64);
OI_CHECK(oi_backend_api, synchronize, 72);
OI_CHECK(oi_backend_api, kernels, 80);
OI_CHECK(oi_backend_api, num_kernels, 88);
OI_CHECK(oi_backend_api, buffer_wrap_host, 96);
OI_CHECK(oi_backend_api, buffer_host_pointer, 104);
_Static_assert(OI_END_OF(oi_backend_api, buffer_host_pointer) == 112, "oi_backend_api v1 size");
_Static_assert(OI_BACKEND_API_MIN_SIZE == 96, "oi_backend_api v1 required prefix");

OI_CHECK(oi_kernels_api, backend, 8);
OI_CHECK(oi_kernels_api, op_schemas_json, 16);
OI_CHECK(oi_kernels_api, kernels, 24);
OI_CHECK(oi_kernels_api, num_kernels, 32);
_Static_assert(OI_END_OF(oi_kernels_api, reserved) == 40, "oi_kernels_api v1 size");

/* ABI 1 reserved the emitter kind: its table was the header alone. */
_Static_assert(offsetof(oi_emitter_api, target) == 8, "oi_emitter_api v1 size");

OI_CHECK(oi_plugin_info, kind, 8);
OI_CHECK(oi_plugin_info, score, 12);
OI_CHECK(oi_plugin_info, name, 16);
OI_CHECK(oi_plugin_info, version, 24);
OI_CHECK(oi_plugin_info, description, 32);
OI_CHECK(oi_plugin_info, context, 40);
OI_CHECK(oi_plugin_info, shutdown, 48);
OI_CHECK(oi_plugin_info, backend, 56);
OI_CHECK(oi_plugin_info, kernels, 64);
OI_CHECK(oi_plugin_info, emitter, 72);
_Static_assert(OI_END_OF(oi_plugin_info, emitter) == 80, "oi_plugin_info v1 size");

/*===---------------------------------- ABI version 2 ----------------------------------===*/

_Static_assert(OI_STATUS_DECLINED == 8, "OI_STATUS_DECLINED");
_Static_assert(OI_LOG_DEBUG == 0 && OI_LOG_INFO == 1 && OI_LOG_WARNING == 2 && OI_LOG_ERROR == 3,
               "oi_log_level");

OI_CHECK(oi_host_api, log, 40);
_Static_assert(sizeof(oi_host_api) == 48, "oi_host_api v2 size");

OI_CHECK(oi_backend_api, buffer_copy, 112);
_Static_assert(sizeof(oi_backend_api) == 120, "oi_backend_api v2 size");

/* Unchanged in ABI 2: the v1 sizes are still the whole structs. */
_Static_assert(sizeof(oi_tensor_desc) == 48 && sizeof(oi_setting) == 64 &&
                   sizeof(oi_kernel_call) == 72 && sizeof(oi_kernel_def) == 56 &&
                   sizeof(oi_device_info) == 48 && sizeof(oi_kernels_api) == 40 &&
                   sizeof(oi_plugin_info) == 80,
               "structs unchanged in ABI 2");

/* The emitter tables. */
OI_CHECK(oi_emitter_api, target, 8);
OI_CHECK(oi_emitter_api, emit, 16);
OI_CHECK(oi_emitter_api, release, 24);
_Static_assert(sizeof(oi_emitter_api) == 32, "oi_emitter_api v2 size");
_Static_assert(OI_EMITTER_API_MIN_SIZE == 32, "oi_emitter_api minimum size");

OI_CHECK(oi_emit_request, plan_json, 8);
OI_CHECK(oi_emit_request, device_json, 16);
OI_CHECK(oi_emit_request, name, 24);
OI_CHECK(oi_emit_request, model_path, 32);
OI_CHECK(oi_emit_request, options, 40);
OI_CHECK(oi_emit_request, num_options, 48);
_Static_assert(OI_END_OF(oi_emit_request, reserved) == 56, "oi_emit_request v2 size");

OI_CHECK(oi_emitted_file, path, 8);
OI_CHECK(oi_emitted_file, data, 16);
OI_CHECK(oi_emitted_file, size, 24);
_Static_assert(sizeof(oi_emitted_file) == 32, "oi_emitted_file v2 size");

OI_CHECK(oi_emit_output, files, 8);
OI_CHECK(oi_emit_output, num_files, 16);
OI_CHECK(oi_emit_output, handle, 24);
_Static_assert(sizeof(oi_emit_output) == 32, "oi_emit_output v2 size");

/*===---------------------------------- ABI version 3 ----------------------------------===*/

/* The model's tensors in the emit request. */
OI_CHECK(oi_emit_request, tensors, 56);
OI_CHECK(oi_emit_request, num_tensors, 64);
_Static_assert(sizeof(oi_emit_request) == 72, "oi_emit_request v3 size");

OI_CHECK(oi_emit_tensor, name, 8);
OI_CHECK(oi_emit_tensor, dtype, 16);
OI_CHECK(oi_emit_tensor, rank, 20);
OI_CHECK(oi_emit_tensor, dims, 24);
OI_CHECK(oi_emit_tensor, data, 32);
OI_CHECK(oi_emit_tensor, size, 40);
_Static_assert(sizeof(oi_emit_tensor) == 48, "oi_emit_tensor v3 size");

/* Unchanged in ABI 3: every other struct keeps its ABI 2 size. */
_Static_assert(sizeof(oi_host_api) == 48 && sizeof(oi_backend_api) == 120 &&
                   sizeof(oi_emitter_api) == 32 && sizeof(oi_emitted_file) == 32 &&
                   sizeof(oi_emit_output) == 32 && sizeof(oi_plugin_info) == 80,
               "structs unchanged in ABI 3");

/* The file must define something to be a valid translation unit. */
int oi_abi_layout_checked(void) {
  return 1;
}
