// The host side of the plugin C ABI: finds plugins on the search path, loads them, and wraps
// their C tables in C++ objects that throw oi::Error instead of returning oi_status.
//
//   auto registry = oi::PluginRegistry::discover(oi::plugin_search_path(cli_dirs, build_dir));
//   auto cpu = registry.backend("cpu");                  // throws (exit 3) when missing
//   const oi::Kernel* k = cpu->find_kernel("add", {{DType::f32, DType::f32}}, DType::f32,
//                                          oi::KernelMode::Normal);
//   auto buf = cpu->alloc(bytes); cpu->upload(*buf, 0, data); cpu->run(*k, ins, outs, settings);
//
// A plugin library stays loaded while any Backend, DeviceBuffer or the registry refers to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "openinfer/dtype.hpp"
#include "openinfer/error.hpp"
#include "openinfer/plugin_abi.h"

namespace oi {

enum class PluginKind : uint32_t { Backend = 1, Kernels = 2, Emitter = 3 };
enum class KernelMode : uint32_t { Normal = 0, InPlace = 1, Accumulate = 2 };

std::string_view plugin_kind_name(PluginKind kind);  // "backend", "kernels", "emitter"
std::string_view kernel_mode_name(KernelMode mode);  // "normal", "inplace", "accumulate"

// Why a candidate file on the search path was not loaded.
enum class SkipReason { NotAPlugin, MissingEntryPoint, AbiTooNew, InitFailed, Shadowed };
std::string_view skip_reason_name(SkipReason reason);  // "not a plugin", "ABI too new", ...

struct SkippedPlugin {
  std::filesystem::path path;
  SkipReason reason;
  std::string detail;  // the loader's or the plugin's own message
};

// What `openinfer plugins` shows about a loaded plugin.
struct PluginDescription {
  PluginKind kind;
  std::string name;
  std::string version;
  std::string description;
  uint32_t abi_version;
  uint32_t score;
  std::filesystem::path path;
  // Backends: the device 0 summary. Kernels plugins: the backend they extend. Emitters: their
  // target ("c") in target_backend.
  std::string device_name;
  std::string target_backend;
  uint64_t features = 0;  // OI_FEATURE_* of device 0
  size_t kernel_count = 0;
  size_t op_schema_count = 0;
  bool flushes_subnormals() const { return (features & OI_FEATURE_FLUSHES_SUBNORMALS) != 0; }
};

// One (op, input dtypes, output dtype, mode) entry a plugin registered.
struct Kernel {
  std::string op;
  std::vector<DType> inputs;
  DType output;
  KernelMode mode;
  std::string provider;  // the plugin that registered it
  const oi_kernel_def* def;
  const oi_host_api* host = nullptr;  // the provider's host table (call->host); null: the host's
  uint32_t abi_version = 1;           // the provider's plugin ABI (DECLINED needs 2)
};

// Backend::run's error when the kernel declined the call (OI_STATUS_DECLINED, ABI 2): these
// operands are beyond its limits (rank, sizes, alignment), not wrong, and another backend may
// run the op. The executor then runs the node on its fallback backend; uncaught it is an input
// error (exit 1): "backend 'B' declined op 'OP': REASON".
class KernelDeclined : public Error {
 public:
  KernelDeclined(std::string backend, std::string op, std::string reason)
      : Error(ErrorKind::Input, "backend '" + backend + "' declined op '" + op + "': " + reason),
        backend_(std::move(backend)),
        op_(std::move(op)),
        reason_(std::move(reason)) {}
  const std::string& backend() const noexcept { return backend_; }
  const std::string& op() const noexcept { return op_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string backend_, op_, reason_;
};

// Messages plugins send through oi_host_api.log (ABI 2).
enum class LogLevel : uint32_t { Debug = 0, Info = 1, Warning = 2, Error = 3 };
std::string_view log_level_name(LogLevel level);  // "debug", "info", "warning", "error"
struct PluginLogMessage {
  std::string_view plugin;  // the plugin's name (its file name while its init runs)
  LogLevel level;
  std::string_view message;
};
using PluginLogSink = std::function<void(const PluginLogMessage&)>;
// Where plugin messages go, process-wide: installs `sink` and returns the one it replaces.
// Calls are serialised (one at a time, from whichever thread the plugin logs on); a sink must
// not call into plugins or install another sink. An empty function restores the default.
PluginLogSink set_plugin_log_sink(PluginLogSink sink);
// The default: INFO and above to stderr, one line each, "plugin 'NAME': warning: MESSAGE"
// ("error: ", none for INFO); DEBUG is dropped.
void default_plugin_log_sink(const PluginLogMessage& message);

class Backend;

// Memory owned by a backend. Freed when the last reference goes away.
class DeviceBuffer {
 public:
  DeviceBuffer(std::shared_ptr<const Backend> backend, oi_buffer* handle, uint64_t size);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  oi_buffer* handle() const { return handle_; }
  uint64_t size() const { return size_; }
  // Host address of byte 0 when the backend's memory is host addressable, else nullptr.
  void* host_pointer() const { return host_pointer_; }

 private:
  friend class Backend;
  std::shared_ptr<const Backend> backend_;
  oi_buffer* handle_;
  uint64_t size_;
  void* host_pointer_ = nullptr;
};

// A kernel operand: `dims` must outlive the call.
struct TensorArg {
  DType dtype;
  std::span<const uint64_t> dims;
  const DeviceBuffer* buffer;
  uint64_t byte_offset = 0;
};

using SettingValue = std::variant<int64_t, double, bool, std::string, DType, std::vector<int64_t>>;
struct KernelSetting {
  std::string name;
  SettingValue value;
};

class Backend : public std::enable_shared_from_this<Backend> {
 public:
  struct State;  // the plugin library, its tables and the open device (plugin_host/)
  explicit Backend(std::shared_ptr<State> state);
  ~Backend();

  const std::string& name() const;
  const PluginDescription& plugin() const;
  const std::string& device_name() const;
  uint64_t features() const;
  bool flushes_subnormals() const { return (features() & OI_FEATURE_FLUSHES_SUBNORMALS) != 0; }
  // True when wrap_host gives zero-copy buffers.
  bool can_wrap_host_memory() const;
  std::span<const DType> device_dtypes() const;

  // The backend's own kernels first, then those of kernels plugins that target it.
  const std::vector<Kernel>& kernels() const;
  // The first matching kernel, or nullptr.
  const Kernel* find_kernel(std::string_view op, std::span<const DType> inputs, DType output,
                            KernelMode mode) const;

  std::shared_ptr<DeviceBuffer> alloc(uint64_t bytes);
  // A buffer using `memory` in place (it must outlive the buffer). Throws an environment error
  // when the backend cannot (can_wrap_host_memory() is false): copy with alloc + upload then.
  std::shared_ptr<DeviceBuffer> wrap_host(void* memory, uint64_t bytes);
  void upload(DeviceBuffer& buffer, uint64_t offset, std::span<const std::byte> data);
  void download(const DeviceBuffer& buffer, uint64_t offset, std::span<std::byte> data) const;
  // True when the plugin copies between its buffers itself (oi_backend_api.buffer_copy, read
  // only from a plugin of ABI 2 or later).
  bool can_copy_buffers() const;
  // Copies `bytes` bytes inside the backend's memory, in order with kernels and transfers and
  // without waiting where the plugin has buffer_copy; else through the host (download, upload).
  // The ranges must not overlap.
  void copy(const DeviceBuffer& src, uint64_t src_offset, DeviceBuffer& dst, uint64_t dst_offset,
            uint64_t bytes);
  // Runs a kernel from kernels(). The caller has validated the operands against the op's
  // schema. A failure status becomes oi::Error carrying the plugin's message; a decline
  // (OI_STATUS_DECLINED from a kernel of an ABI 2 plugin) becomes KernelDeclined.
  void run(const Kernel& kernel, std::span<const TensorArg> inputs,
           std::span<const TensorArg> outputs, std::span<const KernelSetting> settings);
  void synchronize();

 private:
  friend class DeviceBuffer;
  std::shared_ptr<State> state_;
};

// Op schemas added by kernels plugins: a JSON object {op name: catalog entry}.
struct PluginOpSchemas {
  std::string plugin;
  std::string json;
};

// An emitter plugin (plugin_abi.h oi_emitter_api): a synthesizer plan in, source files out.
// One model tensor handed to the emitter (oi_emit_tensor, ABI 3): `data` must stay valid for
// the emit call.
struct EmitTensor {
  std::string name;
  uint32_t dtype = 0;  // oi_dtype
  std::vector<uint64_t> dims;
  std::span<const std::byte> data;
};
struct EmitRequest {
  std::string plan_json;
  std::string device_json;
  std::string name;
  std::string model_path;
  std::vector<std::string> options;      // "key=value"
  std::vector<EmitTensor> tensors = {};  // the model's tensors with data (weights, constants)
};
struct EmittedFile {
  std::string path;  // relative, checked by the host
  std::string data;
};
class Emitter {
 public:
  struct State;
  explicit Emitter(std::shared_ptr<State> state);
  const std::string& target() const;
  const PluginDescription& plugin() const;
  // Calls the plugin; a failure status becomes oi::Error with the plugin's message. File
  // names that are absolute, empty, contain "." or ".." parts or repeat are an error.
  std::vector<EmittedFile> emit(const EmitRequest& request) const;

 private:
  std::shared_ptr<State> state_;
};
// Writes every file under `dir` (created if missing), each atomically.
void write_emitted_files(const std::filesystem::path& dir, const std::vector<EmittedFile>& files);

class PluginRegistry {
 public:
  // Loads every file of every directory, in order. A file is either loaded or listed in
  // skipped(); the first plugin of a name wins and later ones are skipped as shadowed.
  static PluginRegistry discover(const std::vector<std::filesystem::path>& dirs);

  PluginRegistry();
  ~PluginRegistry();
  PluginRegistry(PluginRegistry&&) noexcept;
  PluginRegistry& operator=(PluginRegistry&&) noexcept;

  std::vector<PluginDescription> plugins() const;
  const std::vector<SkippedPlugin>& skipped() const;
  std::vector<std::string> backend_names() const;
  // The backend plugin called `name`, its device 0 opened on first use. Throws an environment
  // error (exit 3) naming the backend, what was found, and why same-named files were skipped.
  std::shared_ptr<Backend> backend(std::string_view name) const;
  std::vector<PluginOpSchemas> op_schemas() const;
  // Targets of the loaded emitters ("c", "glsl"), and the emitter of one: throws an environment
  // error (exit 3) listing the targets found and why same-named files were skipped.
  std::vector<std::string> emitter_targets() const;
  std::shared_ptr<Emitter> emitter(std::string_view target) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The search path of cli.md: `cli_dirs`, then OPENINFER_PLUGIN_PATH (':'-separated), then the
// install's lib/openinfer/plugins (next to the running program's bin/), then `build_tree_dir`
// when the running program lives in that build tree. Duplicates are dropped.
std::vector<std::filesystem::path> plugin_search_path(const std::vector<std::string>& cli_dirs,
                                                      const std::string& build_tree_dir = {});

}  // namespace oi
