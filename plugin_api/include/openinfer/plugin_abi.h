/* The OpenInfer plugin C ABI (docs/plugin-abi.md).
 *
 * Plain C: no C++ types and no exceptions cross this boundary. A plugin is a shared library
 * exporting exactly one symbol, `openinfer_plugin_init`; everything else is reached through
 * tables of function pointers.
 *
 * Versioning rules:
 * - Every struct starts with `uint32_t struct_size; uint32_t abi_version;`. The writer of a
 *   struct sets them to its own sizeof() and OI_PLUGIN_ABI_VERSION.
 * - Structs and tables are append-only. One version number is one layout: the fields above a
 *   struct's "End of ABI version N" line are exactly what the version N header had, and every
 *   field appended later says which version added it ("added in ABI 2").
 * - The reader touches a field only when the writer's abi_version is at least the version that
 *   added it and struct_size covers it (OI_STRUCT_HAS), so a plugin built against an older
 *   header keeps loading in a newer host.
 * - A host serves every ABI version from 1 up to its own and refuses a newer one, naming both.
 * - Frozen layouts are checked by plugin_api/abi_layout_check.c.
 *
 * ABI 2 added: oi_backend_api.buffer_copy, OI_STATUS_DECLINED (a kernel declines one call and
 * the host runs it on its fallback backend), oi_host_api.log with the OI_LOG_* levels, and the
 * emitter tables (ABI 1 only reserved OI_PLUGIN_KIND_EMITTER and an empty oi_emitter_api).
 * ABI 3 added the model's tensors to oi_emit_request (oi_emit_tensor), so an emitter embeds
 * weights without opening the model itself.
 *
 * Ownership: status objects are created and freed by the host (oi_host_api), so one side owns
 * their memory. Buffers, devices and kernel tables belong to the plugin. Strings returned by a
 * plugin live as long as the plugin stays loaded (the host never unloads a plugin while any of
 * its objects is alive). */
#ifndef OPENINFER_PLUGIN_ABI_H
#define OPENINFER_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. */
#define OI_PLUGIN_ABI_VERSION 3u

/* The one symbol a plugin exports. */
#define OI_PLUGIN_ENTRY_POINT "openinfer_plugin_init"

#if defined(_WIN32)
#define OI_PLUGIN_EXPORT __declspec(dllexport)
#else
#define OI_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* True when the struct at `ptr` (of type `type`, as the reader knows it) is large enough to
 * contain `field`: the writer was built against a header that had it. */
#define OI_STRUCT_HAS(ptr, type, field) \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

/*===------------------------------------------------------------------------------------===*/
/* Status                                                                                   */
/*===------------------------------------------------------------------------------------===*/

/* NULL means OK. Anything else is an error made by oi_host_api.status_create. */
typedef struct oi_status oi_status;

typedef enum oi_status_code {
  OI_STATUS_OK = 0,
  OI_STATUS_INVALID_ARGUMENT = 1, /* the caller passed something wrong */
  OI_STATUS_NOT_FOUND = 2,        /* no such device, kernel, setting */
  OI_STATUS_UNIMPLEMENTED = 3,    /* valid request this plugin does not support */
  OI_STATUS_UNAVAILABLE = 4,      /* the device or a resource is missing on this machine */
  OI_STATUS_INCOMPATIBLE = 5,     /* ABI or version mismatch */
  OI_STATUS_INTERNAL = 6,         /* a bug or an unexpected exception in the plugin */
  OI_STATUS_OUT_OF_MEMORY = 7,    /* an allocation failed */
  /* (added in ABI 2) Kernels only: this call is beyond what the kernel takes (a rank, size,
   * alignment or device limit that depends on the operands), not an error. The host runs the
   * node on its fallback backend for this call, as for an op the backend has no kernel for;
   * without one the run fails naming the backend, the op and the message. A kernel declines
   * before it writes any output or queues any work. From an ABI 1 plugin it is an error. */
  OI_STATUS_DECLINED = 8
} oi_status_code;

/* (added in ABI 2) Levels of oi_host_api.log. */
typedef enum oi_log_level {
  OI_LOG_DEBUG = 0,   /* dropped unless the host's sink asks for it */
  OI_LOG_INFO = 1,    /* statistics the user asked for (OPENINFER_VULKAN_STATS) */
  OI_LOG_WARNING = 2, /* something the user should know: a slow path, a device quirk */
  OI_LOG_ERROR = 3    /* a failure the plugin cannot report through a status */
} oi_log_level;

/*===------------------------------------------------------------------------------------===*/
/* Element types, plugin kinds, kernel modes, features                                      */
/*===------------------------------------------------------------------------------------===*/

/* Element types use the OINF dtype tags (oinf.md). */
/* clang-format off */
typedef enum oi_dtype {
  OI_DTYPE_I8 = 1, OI_DTYPE_I16 = 2, OI_DTYPE_I32 = 3, OI_DTYPE_I64 = 4,
  OI_DTYPE_U8 = 5, OI_DTYPE_U16 = 6, OI_DTYPE_U32 = 7, OI_DTYPE_U64 = 8,
  OI_DTYPE_F16 = 9, OI_DTYPE_F32 = 10, OI_DTYPE_F64 = 11,
  OI_DTYPE_BOOL = 12, OI_DTYPE_BITSET = 13,
  OI_DTYPE_BF16 = 16, OI_DTYPE_F8 = 17,
  OI_DTYPE_I4 = 18, OI_DTYPE_I2 = 19, OI_DTYPE_I1 = 20,
  OI_DTYPE_U4 = 21, OI_DTYPE_U2 = 22, OI_DTYPE_U1 = 23,
  OI_DTYPE_T2 = 24, OI_DTYPE_T1 = 25
} oi_dtype;
/* clang-format on */

typedef enum oi_plugin_kind {
  OI_PLUGIN_KIND_BACKEND = 1, /* devices, buffers, kernels */
  OI_PLUGIN_KIND_KERNELS = 2, /* op schemas and kernels for an existing backend */
  OI_PLUGIN_KIND_EMITTER = 3  /* source emitters: a synthesizer plan to source files (ABI 2:
                               * ABI 1 only reserved the kind) */
} oi_plugin_kind;

typedef enum oi_kernel_mode {
  OI_KERNEL_MODE_NORMAL = 0,    /* the output is a different variable from every input */
  OI_KERNEL_MODE_INPLACE = 1,   /* the output aliases one input of the output's shape */
  OI_KERNEL_MODE_ACCUMULATE = 2 /* acc=: inputs widened exactly to the output dtype */
} oi_kernel_mode;

/* oi_device_info.features bits. */
#define OI_FEATURE_F64 (1ull << 0)                /* computes f64 natively */
#define OI_FEATURE_I64 (1ull << 1)                /* computes i64/u64 natively */
#define OI_FEATURE_F16 (1ull << 2)                /* computes f16 natively */
#define OI_FEATURE_HOST_MEMORY (1ull << 3)        /* buffers are host memory */
#define OI_FEATURE_WRAP_HOST_MEMORY (1ull << 4)   /* buffer_wrap_host works: zero-copy views */
#define OI_FEATURE_FLUSHES_SUBNORMALS (1ull << 5) /* subnormal float results become zero */
/* Kernel calls may run at the same time from several threads (each on its own buffers): the
 * host then lets concurrent consumer blocks (yield/await) call kernels in parallel. Without it
 * the host serialises kernel calls on the device. */
#define OI_FEATURE_CONCURRENT_KERNELS (1ull << 6)

/*===------------------------------------------------------------------------------------===*/
/* Host API: what the host offers a plugin. Valid for as long as the plugin is loaded.      */
/*===------------------------------------------------------------------------------------===*/

typedef struct oi_host_api {
  uint32_t struct_size;
  uint32_t abi_version;
  /* A new status; `message` is copied. code must not be OI_STATUS_OK. Thread-safe. */
  oi_status* (*status_create)(uint32_t code, const char* message);
  uint32_t (*status_code)(const oi_status* status);
  const char* (*status_message)(const oi_status* status);
  void (*status_free)(oi_status* status);
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
  /* (added in ABI 2) Reports a message (oi_log_level, NUL-terminated UTF-8, copied) through the
   * host instead of writing to stderr. `host` is the table this function was read from: each
   * plugin gets its own, so the host knows whose message it is and prefixes the plugin's name.
   * By default the host prints INFO and above to stderr; a program may install its own sink.
   * Thread-safe; may be called from any thread for as long as the plugin is loaded. A host of
   * ABI 1 has no log (check abi_version >= 2 and OI_STRUCT_HAS; oi::abi::log does). */
  void (*log)(const struct oi_host_api* host, uint32_t level, const char* message);
  /* ---- End of ABI version 2 - DO NOT MODIFY ABOVE ---- */
} oi_host_api;

/*===------------------------------------------------------------------------------------===*/
/* Tensors, settings and kernels                                                            */
/*===------------------------------------------------------------------------------------===*/

typedef struct oi_buffer oi_buffer; /* opaque, owned by a backend */
typedef struct oi_device oi_device; /* opaque, owned by a backend */

/* One tensor operand of a kernel call. Row-major, packed dtypes LSB-first. */
typedef struct oi_tensor_desc {
  uint32_t struct_size;
  uint32_t abi_version;
  uint32_t dtype; /* oi_dtype */
  uint32_t rank;
  const uint64_t* dims; /* rank entries; NULL when rank == 0 */
  oi_buffer* buffer;
  uint64_t byte_offset; /* where the tensor starts inside buffer */
  /* Host address of the first element (buffer + byte_offset) when the backend's memory is
   * host addressable (OI_FEATURE_HOST_MEMORY), else NULL. Not necessarily aligned. */
  void* host_data;
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
} oi_tensor_desc;

typedef enum oi_setting_type {
  OI_SETTING_INT = 1,     /* int_value; a u64 above INT64_MAX as its two's-complement bits */
  OI_SETTING_FLOAT = 2,   /* float_value */
  OI_SETTING_BOOL = 3,    /* int_value: 0 or 1 */
  OI_SETTING_STRING = 4,  /* string_value */
  OI_SETTING_DTYPE = 5,   /* int_value: an oi_dtype tag */
  OI_SETTING_INT_LIST = 6 /* list_values[list_length] */
} oi_setting_type;

/* One named op setting. The host passes every setting of the op's schema, defaults applied;
 * a setting without default that the graph does not give (div_by_zero_mask) is absent. */
typedef struct oi_setting {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* name;
  uint32_t type; /* oi_setting_type */
  uint32_t reserved;
  int64_t int_value;
  double float_value;
  const char* string_value;
  const int64_t* list_values;
  uint64_t list_length;
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
} oi_setting;

typedef struct oi_kernel_def oi_kernel_def;

/* Everything a kernel gets. The host has validated shapes, dtypes, broadcasting, aliasing and
 * settings against the op's schema, so kernels do not check them again. */
typedef struct oi_kernel_call {
  uint32_t struct_size;
  uint32_t abi_version;
  const oi_host_api* host;
  oi_device* device;
  const oi_kernel_def* kernel;
  const oi_tensor_desc* inputs;
  const oi_tensor_desc* outputs;
  const oi_setting* settings;
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t num_settings;
  uint32_t reserved;
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
} oi_kernel_call;

/* Runs one op. Returns NULL or an error status made with call->host. */
typedef oi_status* (*oi_kernel_fn)(const oi_kernel_call* call);

/* A kernel is data: the host derives support queries and counts from these entries. In-place
 * mode: outputs[0] has the same buffer and offset as the input of the output's shape. */
struct oi_kernel_def {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* op;               /* catalog name: "add" */
  const uint32_t* input_dtypes; /* num_inputs oi_dtype tags */
  uint32_t num_inputs;
  uint32_t output_dtype; /* oi_dtype */
  uint32_t mode;         /* oi_kernel_mode */
  uint32_t reserved;
  oi_kernel_fn run;
  void* user_data; /* for the kernel's own use; the host ignores it */
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
};

/*===------------------------------------------------------------------------------------===*/
/* Backend plugins                                                                          */
/*===------------------------------------------------------------------------------------===*/

typedef struct oi_device_info {
  uint32_t struct_size; /* set by the host; the plugin writes only fields it covers */
  uint32_t abi_version;
  const char* name;       /* "cpu (16 threads)" */
  uint64_t features;      /* OI_FEATURE_* bits */
  const uint32_t* dtypes; /* the dtypes the device stores and computes */
  uint32_t num_dtypes;
  uint32_t reserved;
  uint64_t memory_bytes; /* 0 when unknown */
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
} oi_device_info;

/* Owned by the plugin; `context` is oi_plugin_info.context. Thread-safety: buffer and device
 * calls may come from several threads for different buffers; kernel calls on one device are
 * serialised by the host unless the device reports OI_FEATURE_CONCURRENT_KERNELS. */
typedef struct oi_backend_api {
  uint32_t struct_size;
  uint32_t abi_version;
  oi_status* (*device_count)(void* context, uint32_t* out_count);
  oi_status* (*device_get_info)(void* context, uint32_t index, oi_device_info* out_info);
  oi_status* (*device_open)(void* context, uint32_t index, oi_device** out_device);
  void (*device_close)(oi_device* device);
  /* A buffer of `bytes` bytes in the backend's own memory (bytes may be 0). */
  oi_status* (*buffer_alloc)(oi_device* device, uint64_t bytes, oi_buffer** out_buffer);
  void (*buffer_free)(oi_device* device, oi_buffer* buffer);
  oi_status* (*buffer_upload)(oi_device* device, oi_buffer* buffer, uint64_t offset,
                              const void* src, uint64_t bytes);
  oi_status* (*buffer_download)(oi_device* device, oi_buffer* buffer, uint64_t offset, void* dst,
                                uint64_t bytes);
  /* Waits until every submitted kernel and transfer has finished. */
  oi_status* (*synchronize)(oi_device* device);
  const oi_kernel_def* kernels;
  uint32_t num_kernels;
  uint32_t reserved;
  /* (optional, may be NULL) A buffer that uses `host_memory` in place, without copying; the
   * memory outlives the buffer. Lets a CPU backend run on a memory-mapped model file. */
  oi_status* (*buffer_wrap_host)(oi_device* device, void* host_memory, uint64_t bytes,
                                 oi_buffer** out_buffer);
  /* (optional, may be NULL) The host address of a buffer's first byte, for backends whose
   * memory is host addressable; the host passes it to kernels as oi_tensor_desc.host_data. */
  oi_status* (*buffer_host_pointer)(oi_device* device, oi_buffer* buffer, void** out_pointer);
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
  /* (added in ABI 2; optional, may be NULL) Copies `bytes` bytes from `src` at `src_offset` to
   * `dst` at `dst_offset` inside the device, in order with kernels and transfers: after every
   * one issued before it, before every later one, and without waiting for the device. The two
   * ranges must not overlap. The host reads it only from a table of abi_version >= 2; without
   * it the host copies through its own memory (buffer_download, then buffer_upload). */
  oi_status* (*buffer_copy)(oi_device* device, oi_buffer* src, uint64_t src_offset, oi_buffer* dst,
                            uint64_t dst_offset, uint64_t bytes);
  /* ---- End of ABI version 2 - DO NOT MODIFY ABOVE ---- */
} oi_backend_api;

/* The prefix every backend table must have (the optional slots may be missing). */
#define OI_BACKEND_API_MIN_SIZE offsetof(oi_backend_api, buffer_wrap_host)

/*===------------------------------------------------------------------------------------===*/
/* Kernels plugins                                                                          */
/*===------------------------------------------------------------------------------------===*/

typedef struct oi_kernels_api {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* backend; /* name of the backend plugin these kernels run on: "cpu" */
  /* (optional) New ops: one JSON object mapping op name to a schema in the format of the op
   * catalog's "ops" entries (docs/plugin-abi.md lists the fields). NULL when none. */
  const char* op_schemas_json;
  const oi_kernel_def* kernels;
  uint32_t num_kernels;
  uint32_t reserved;
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
} oi_kernels_api;

/*===------------------------------------------------------------------------------------===*/
/* Emitter plugins (added in ABI 2: ABI 1 reserved the kind and an empty oi_emitter_api)     */
/*===------------------------------------------------------------------------------------===*/

/* Emitter plugins turn a synthesizer plan into source files (docs/synth.md, docs/plugin-abi.md).
 * The plan crosses the boundary in its versioned JSON form; the files come back to the host,
 * which checks their names and writes them atomically. The host uses an emitter only from a
 * plugin of abi_version >= 2. */

/* (added in ABI 3) One model tensor of an emit request: its bytes as the .oinf stores them
 * (little-endian, packed integers packed, LSB first), valid for the call. */
typedef struct oi_emit_tensor {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* name;
  uint32_t dtype; /* oi_dtype */
  uint32_t rank;
  const uint64_t* dims;
  const void* data; /* `size` bytes */
  uint64_t size;
  /* ---- End of ABI version 3 - DO NOT MODIFY ABOVE ---- */
} oi_emit_tensor;

/* (added in ABI 2) What the host asks for. Strings are NUL-terminated UTF-8 and live for the
 * call. */
typedef struct oi_emit_request {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* plan_json;      /* the plan (format "openinfer-synth-plan") */
  const char* device_json;    /* the device description (docs/devices.md), canonical form */
  const char* name;           /* base name of the generated files: "model" -> model.c, model.h */
  const char* model_path;     /* the .oinf the plan was made for ("" when unknown) */
  const char* const* options; /* "key=value" strings (--embed-weights -> "embed_weights=1") */
  uint32_t num_options;
  uint32_t reserved;
  /* ---- End of ABI version 2 - DO NOT MODIFY ABOVE ---- */
  /* (added in ABI 3) Every tensor of the model that holds data (weights, constants), read by
   * the host from model_path's file: what an emitter embeds or folds comes from here, never
   * from opening the model itself. Read them only when abi_version >= 3 and
   * OI_STRUCT_HAS(request, oi_emit_request, num_tensors). */
  const oi_emit_tensor* tensors;
  uint32_t num_tensors;
  uint32_t reserved3;
  /* ---- End of ABI version 3 - DO NOT MODIFY ABOVE ---- */
} oi_emit_request;

/* (added in ABI 2) One generated file: `path` is relative, '/'-separated, without "." or ".."
 * parts. */
typedef struct oi_emitted_file {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* path;
  const char* data; /* `size` bytes, not necessarily NUL-terminated */
  uint64_t size;
  /* ---- End of ABI version 2 - DO NOT MODIFY ABOVE ---- */
} oi_emitted_file;

/* (added in ABI 2) Filled by emit; owned by the plugin until the host passes it to release. */
typedef struct oi_emit_output {
  uint32_t struct_size;
  uint32_t abi_version;
  const oi_emitted_file* files;
  uint32_t num_files;
  uint32_t reserved;
  void* handle; /* the plugin's own bookkeeping for release */
  /* ---- End of ABI version 2 - DO NOT MODIFY ABOVE ---- */
} oi_emit_output;

typedef struct oi_emitter_api {
  uint32_t struct_size;
  uint32_t abi_version;
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
  /* (added in ABI 2) The emitter's target: what `openinfer synth --target` names ("c", "glsl"). */
  const char* target;
  /* (added in ABI 2) Generates the files for one plan. The host zeroes `out` and sets its
   * struct_size; on success the plugin fills it. A plan the emitter cannot express is an error
   * (UNIMPLEMENTED naming the op, dtype or construct), never partial or wrong code. */
  oi_status* (*emit)(void* context, const oi_emit_request* request, oi_emit_output* out);
  /* (added in ABI 2) Frees what emit returned (called once per successful emit). */
  void (*release)(void* context, oi_emit_output* out);
  /* ---- End of ABI version 2 - DO NOT MODIFY ABOVE ---- */
  /* The required fields end here: a host needs struct_size >= OI_EMITTER_API_MIN_SIZE. */
} oi_emitter_api;

/* The size an emitter table must have for the host to use it. */
#define OI_EMITTER_API_MIN_SIZE (offsetof(oi_emitter_api, release) + sizeof(void (*)(void)))

/*===------------------------------------------------------------------------------------===*/
/* Plugin entry point                                                                       */
/*===------------------------------------------------------------------------------------===*/

/* Filled by openinfer_plugin_init. The host zeroes it and sets struct_size to its own size;
 * the plugin sets abi_version to the version it was built for and writes only the fields
 * that struct_size covers. */
typedef struct oi_plugin_info {
  uint32_t struct_size;
  uint32_t abi_version;
  uint32_t kind;       /* oi_plugin_kind */
  uint32_t score;      /* 0: cannot run on this machine; higher wins among plugins of one kind */
  const char* name;    /* unique on the search path: "cpu" */
  const char* version; /* the plugin's own version: "0.1.0" */
  const char* description; /* (optional) one line */
  void* context;           /* passed back to table functions */
  /* (optional) Called once before the host forgets the plugin. */
  void (*shutdown)(void* context);
  const oi_backend_api* backend; /* kind == OI_PLUGIN_KIND_BACKEND */
  const oi_kernels_api* kernels; /* kind == OI_PLUGIN_KIND_KERNELS */
  const oi_emitter_api* emitter; /* kind == OI_PLUGIN_KIND_EMITTER */
  /* ---- End of ABI version 1 - DO NOT MODIFY ABOVE ---- */
} oi_plugin_info;

/* The entry point's type. `host_abi_version` is the host's OI_PLUGIN_ABI_VERSION; `host` stays
 * valid while the plugin is loaded. Returns NULL on success, else a status from host. */
typedef oi_status* (*oi_plugin_init_fn)(uint32_t host_abi_version, const oi_host_api* host,
                                        oi_plugin_info* out_info);

#ifdef __cplusplus
}
#endif

#endif /* OPENINFER_PLUGIN_ABI_H */
