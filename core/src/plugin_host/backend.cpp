// Backend and DeviceBuffer: C++ wrappers over a backend plugin's oi_backend_api table.
#include <algorithm>
#include <array>
#include <vector>

#include "openinfer/error.hpp"
#include "plugin_host_internal.hpp"

namespace oi {

using plugin_host::throw_if_error;

Backend::State::~State() {
  if (device != nullptr) api->device_close(device);
}

Backend::Backend(std::shared_ptr<State> state) : state_(std::move(state)) {}
Backend::~Backend() = default;

const std::string& Backend::name() const {
  return state_->plugin->description.name;
}
const PluginDescription& Backend::plugin() const {
  return state_->plugin->description;
}
const std::string& Backend::device_name() const {
  return state_->device_name;
}
uint64_t Backend::features() const {
  return state_->features;
}
std::span<const DType> Backend::device_dtypes() const {
  return state_->dtypes;
}
const std::vector<Kernel>& Backend::kernels() const {
  return state_->kernels;
}

bool Backend::can_wrap_host_memory() const {
  return OI_STRUCT_HAS(state_->api, oi_backend_api, buffer_wrap_host) &&
         state_->api->buffer_wrap_host != nullptr;
}

const Kernel* Backend::find_kernel(std::string_view op, std::span<const DType> inputs, DType output,
                                   KernelMode mode) const {
  for (const Kernel& k : state_->kernels) {
    if (k.op == op && k.output == output && k.mode == mode &&
        std::equal(k.inputs.begin(), k.inputs.end(), inputs.begin(), inputs.end())) {
      return &k;
    }
  }
  return nullptr;
}

DeviceBuffer::DeviceBuffer(std::shared_ptr<const Backend> backend, oi_buffer* handle, uint64_t size)
    : backend_(std::move(backend)), handle_(handle), size_(size) {
  const auto& state = *backend_->state_;
  if (OI_STRUCT_HAS(state.api, oi_backend_api, buffer_host_pointer) &&
      state.api->buffer_host_pointer != nullptr) {
    void* pointer = nullptr;
    oi_status* status = state.api->buffer_host_pointer(state.device, handle_, &pointer);
    if (status == nullptr) host_pointer_ = pointer;
    plugin_host::take_status_message(status);  // no host pointer: kernels get NULL
  }
}

DeviceBuffer::~DeviceBuffer() {
  const auto& state = *backend_->state_;
  state.api->buffer_free(state.device, handle_);
}

std::shared_ptr<DeviceBuffer> Backend::alloc(uint64_t bytes) {
  oi_buffer* handle = nullptr;
  throw_if_error(state_->api->buffer_alloc(state_->device, bytes, &handle),
                 "backend '" + name() + "' cannot allocate " + std::to_string(bytes) + " bytes");
  if (handle == nullptr) {  // a plugin bug: fail here, not at the buffer's first use
    throw Error(ErrorKind::Environment, "backend '" + name() + "' reported an allocation of " +
                                            std::to_string(bytes) + " bytes but gave no buffer");
  }
  return std::make_shared<DeviceBuffer>(shared_from_this(), handle, bytes);
}

std::shared_ptr<DeviceBuffer> Backend::wrap_host(void* memory, uint64_t bytes) {
  if (!can_wrap_host_memory()) {
    throw Error(ErrorKind::Environment, "backend '" + name() + "' cannot use host memory in place");
  }
  oi_buffer* handle = nullptr;
  throw_if_error(state_->api->buffer_wrap_host(state_->device, memory, bytes, &handle),
                 "backend '" + name() + "' cannot wrap host memory");
  return std::make_shared<DeviceBuffer>(shared_from_this(), handle, bytes);
}

namespace {
void check_range(const DeviceBuffer& buffer, uint64_t offset, uint64_t bytes, const char* what) {
  if (offset > buffer.size() || bytes > buffer.size() - offset) {
    throw input_error(std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
                      std::to_string(offset) + " overruns a buffer of " +
                      std::to_string(buffer.size()) + " bytes");
  }
}
}  // namespace

void Backend::upload(DeviceBuffer& buffer, uint64_t offset, std::span<const std::byte> data) {
  check_range(buffer, offset, data.size(), "upload");
  if (data.empty()) return;  // a zero-sized value: nothing to move, and data() may be null
  throw_if_error(
      state_->api->buffer_upload(state_->device, buffer.handle(), offset, data.data(), data.size()),
      "backend '" + name() + "' upload");
}

void Backend::download(const DeviceBuffer& buffer, uint64_t offset,
                       std::span<std::byte> data) const {
  check_range(buffer, offset, data.size(), "download");
  if (data.empty()) return;  // a zero-sized value: nothing to move, and data() may be null
  throw_if_error(state_->api->buffer_download(state_->device, buffer.handle(), offset, data.data(),
                                              data.size()),
                 "backend '" + name() + "' download");
}

bool Backend::can_copy_buffers() const {
  // buffer_copy was added in ABI 2: an ABI 1 table ends before it, whatever its struct_size.
  return state_->plugin->info.abi_version >= 2 &&
         OI_STRUCT_HAS(state_->api, oi_backend_api, buffer_copy) &&
         state_->api->buffer_copy != nullptr;
}

void Backend::copy(const DeviceBuffer& src, uint64_t src_offset, DeviceBuffer& dst,
                   uint64_t dst_offset, uint64_t bytes) {
  check_range(src, src_offset, bytes, "copy source");
  check_range(dst, dst_offset, bytes, "copy destination");
  if (&src == &dst && src_offset < dst_offset + bytes && dst_offset < src_offset + bytes) {
    throw input_error("copy of " + std::to_string(bytes) + " bytes between overlapping ranges");
  }
  if (bytes == 0) return;
  if (!can_copy_buffers()) {
    std::vector<std::byte> staged(bytes);
    download(src, src_offset, staged);
    upload(dst, dst_offset, staged);
    return;
  }
  throw_if_error(state_->api->buffer_copy(state_->device, src.handle(), src_offset, dst.handle(),
                                          dst_offset, bytes),
                 "backend '" + name() + "' copy");
}

void Backend::synchronize() {
  throw_if_error(state_->api->synchronize(state_->device), "backend '" + name() + "' synchronize");
}

namespace {

// `n` values, in place when they fit in N, else on the heap.
template <class T, size_t N>
class InlineArray {
 public:
  explicit InlineArray(size_t n) : n_(n) {
    if (n > N) heap_.resize(n);
  }
  T* data() { return n_ > N ? heap_.data() : local_.data(); }
  T& operator[](size_t i) { return data()[i]; }
  size_t size() const { return n_; }

 private:
  size_t n_;
  std::array<T, N> local_{};
  std::vector<T> heap_;
};

oi_setting to_abi_setting(const KernelSetting& s) {
  oi_setting out{};
  out.struct_size = sizeof(out);
  out.abi_version = OI_PLUGIN_ABI_VERSION;
  out.name = s.name.c_str();
  std::visit(
      [&out](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, int64_t>) {
          out.type = OI_SETTING_INT;
          out.int_value = v;
        } else if constexpr (std::is_same_v<V, double>) {
          out.type = OI_SETTING_FLOAT;
          out.float_value = v;
        } else if constexpr (std::is_same_v<V, bool>) {
          out.type = OI_SETTING_BOOL;
          out.int_value = v ? 1 : 0;
        } else if constexpr (std::is_same_v<V, std::string>) {
          out.type = OI_SETTING_STRING;
          out.string_value = v.c_str();
        } else if constexpr (std::is_same_v<V, DType>) {
          out.type = OI_SETTING_DTYPE;
          out.int_value = static_cast<int64_t>(v);
        } else {
          out.type = OI_SETTING_INT_LIST;
          out.list_values = v.data();
          out.list_length = v.size();
        }
      },
      s.value);
  return out;
}

oi_tensor_desc to_abi_tensor(const TensorArg& t, const char* role, size_t index) {
  if (t.buffer == nullptr) {
    throw input_error(std::string(role) + " " + std::to_string(index) + " has no buffer");
  }
  // Kernels trust dims and offsets: a tensor that does not fit its buffer would be read or
  // written out of bounds, so it is refused here, on the host's side of the ABI.
  uint64_t numel = 1;
  bool overflow = false;
  for (uint64_t d : t.dims) overflow = overflow || __builtin_mul_overflow(numel, d, &numel);
  const std::optional<uint64_t> bytes = overflow ? std::nullopt : storage_bytes(t.dtype, numel);
  if (!bytes || t.byte_offset > t.buffer->size() || *bytes > t.buffer->size() - t.byte_offset) {
    throw input_error(
        std::string(role) + " " + std::to_string(index) + " (" + std::string(dtype_name(t.dtype)) +
        ", " + std::to_string(numel) + " elements at byte " + std::to_string(t.byte_offset) +
        ") does not fit its buffer of " + std::to_string(t.buffer->size()) + " bytes");
  }
  oi_tensor_desc d{};
  d.struct_size = sizeof(d);
  d.abi_version = OI_PLUGIN_ABI_VERSION;
  d.dtype = static_cast<uint32_t>(t.dtype);
  d.rank = static_cast<uint32_t>(t.dims.size());
  d.dims = t.dims.empty() ? nullptr : t.dims.data();
  d.buffer = t.buffer->handle();
  d.byte_offset = t.byte_offset;
  if (t.buffer->host_pointer() != nullptr) {
    d.host_data = static_cast<std::byte*>(t.buffer->host_pointer()) + t.byte_offset;
  }
  return d;
}

}  // namespace

void Backend::run(const Kernel& kernel, std::span<const TensorArg> inputs,
                  std::span<const TensorArg> outputs, std::span<const KernelSetting> settings) {
  if (inputs.size() != kernel.inputs.size()) {
    throw input_error("op '" + kernel.op + "' takes " + std::to_string(kernel.inputs.size()) +
                      " inputs, got " + std::to_string(inputs.size()));
  }
  // The common call fits in arrays on the stack: no allocation per node.
  InlineArray<oi_tensor_desc, 8> in(inputs.size());
  InlineArray<oi_tensor_desc, 2> out(outputs.size());
  InlineArray<oi_setting, 8> set(settings.size());
  for (size_t i = 0; i < inputs.size(); ++i) in[i] = to_abi_tensor(inputs[i], "input", i);
  for (size_t i = 0; i < outputs.size(); ++i) out[i] = to_abi_tensor(outputs[i], "output", i);
  for (size_t i = 0; i < settings.size(); ++i) set[i] = to_abi_setting(settings[i]);
  oi_kernel_call call{};
  call.struct_size = sizeof(call);
  call.abi_version = OI_PLUGIN_ABI_VERSION;
  call.host = kernel.host != nullptr ? kernel.host : plugin_host::host_api();
  call.device = state_->device;
  call.kernel = kernel.def;
  call.inputs = in.data();
  call.outputs = out.data();
  call.settings = set.data();
  call.num_inputs = static_cast<uint32_t>(in.size());
  call.num_outputs = static_cast<uint32_t>(out.size());
  call.num_settings = static_cast<uint32_t>(set.size());
  // The message is built only on failure: this is the executor's per-node hot path.
  if (oi_status* status = kernel.def->run(&call)) {
    if (kernel.abi_version >= 2 && plugin_host::status_code_of(status) == OI_STATUS_DECLINED) {
      std::string reason = plugin_host::take_status_message(status);
      if (kernel.provider != name()) reason += " (kernel from plugin '" + kernel.provider + "')";
      throw KernelDeclined(name(), kernel.op, std::move(reason));
    }
    throw_if_error(status, "op '" + kernel.op + "' failed on backend '" + name() +
                               "' (kernel from plugin '" + kernel.provider + "')");
  }
}

}  // namespace oi
