// The recording device behind the Vulkan backend's kernels in the glsl emitter: the few device
// functions of plugins/vulkan/backend.hpp and kernel_registry.hpp that kernels call, defined
// here instead of by the plugin's device.cpp (this emitter never opens a Vulkan device).
#include "vulkan_record.hpp"

#include <memory>
#include <new>
#include <string>

#include "openinfer/plugin_abi.hpp"
#include "refusal.hpp"

struct oi_buffer {
  uint32_t id;
  uint64_t bytes;
};

struct oi_status {
  uint32_t code;
  std::string message;
};

namespace oi::glsl {

struct Recorder::Impl {
  Recorder* self;
  vulkan::DeviceCaps caps;
  std::vector<std::unique_ptr<oi_buffer>> buffers;
  std::vector<bool> scratch;
};

}  // namespace oi::glsl

struct oi_device {
  oi::glsl::Recorder::Impl* impl;
};

namespace {

oi_status* create_status(uint32_t code, const char* message) {
  try {
    return new oi_status{code, message ? message : ""};
  } catch (...) {
    return nullptr;
  }
}
uint32_t status_code(const oi_status* s) {
  return s ? s->code : static_cast<uint32_t>(OI_STATUS_OK);
}
const char* status_message(const oi_status* s) {
  return s ? s->message.c_str() : "";
}
void free_status(oi_status* s) {
  delete s;
}
void log_message(const oi_host_api*, uint32_t, const char*) {}

const oi_host_api kRecordingHost = {sizeof(oi_host_api), OI_PLUGIN_ABI_VERSION, create_status,
                                    status_code,         status_message,        free_status,
                                    log_message};

oi_buffer* new_buffer(oi::glsl::Recorder::Impl& impl, uint64_t bytes, bool scratch) {
  impl.buffers.push_back(
      std::make_unique<oi_buffer>(oi_buffer{static_cast<uint32_t>(impl.buffers.size()), bytes}));
  impl.scratch.push_back(scratch);
  return impl.buffers.back().get();
}

// What no Vulkan backend kernel asks of the recording device: only gather reads device values
// back (its indices, checked by the host program) and only rope reads and uploads (its position
// and cos/sin table, computed by the host program; record_kernel allows exactly those), and no
// kernel copies buffers or dispatches without its output bound. Kept for run() to refuse as an
// invalid plan; the kernel gets a failed status to stop.
oi_status* unexpected(oi::glsl::Recorder& rec, const std::string& what) {
  rec.unexpected = what;
  return create_status(OI_STATUS_INTERNAL, what.c_str());
}

}  // namespace

namespace oi::vulkan {

const oi_host_api*& host() {
  static const oi_host_api* h = &kRecordingHost;
  return h;
}

const DeviceCaps& caps_of(const oi_device* device) {
  return device->impl->caps;
}

void run_dispatch(oi_device* device, const Dispatch& job) {
  glsl::Recorder& rec = *device->impl->self;
  glsl::RecordedDispatch d{job, {}};
  for (size_t i = 0; i < kDataBindings; ++i) {
    const oi_buffer* b = job.buffers[i] ? job.buffers[i] : job.buffers[job.output];
    if (b == nullptr) {  // every backend kernel binds its output (see unexpected())
      rec.unexpected = "a dispatch binds no buffer";
      throw abi::StatusError(OI_STATUS_DECLINED, rec.unexpected);
    }
    // As the backend's device: a shader binds whole buffers of at most maxStorageBufferRange.
    if (device->impl->caps.max_storage_range && b->bytes > device->impl->caps.max_storage_range)
      throw abi::StatusError(OI_STATUS_DECLINED, "a buffer of " + std::to_string(b->bytes) +
                                                     " bytes is larger than the device's "
                                                     "limits.max_storage_buffer_range_bytes");
    d.buffer[i] = b->id;
    d.job.buffers[i] = nullptr;  // the ids stand for them; no pointer outlives the recording
  }
  rec.dispatches.push_back(std::move(d));
}

oi_status* buffer_alloc(oi_device* device, uint64_t bytes, oi_buffer** out_buffer) {
  OI_ABI_TRY
  *out_buffer = new_buffer(*device->impl, (bytes + 7) / 8 * 8, true);
  OI_ABI_CATCH(host())
}

// The generated program zero-fills its scratch once; the kernel writes it in full before reading.
oi_status* scratch_alloc(oi_device* device, uint64_t bytes, oi_buffer** out_buffer) {
  return buffer_alloc(device, bytes, out_buffer);
}

void buffer_free(oi_device*, oi_buffer*) {}  // scratch stays the program's for every step

oi_status* buffer_upload(oi_device* device, oi_buffer* buffer, uint64_t, const void*, uint64_t) {
  glsl::Recorder& rec = *device->impl->self;
  if (rec.allow_uploads) {
    rec.uploaded.push_back(buffer->id);
    return nullptr;
  }
  return unexpected(rec, "the kernel uploads data it computes on the host from device values");
}

oi_status* buffer_download(oi_device* device, oi_buffer*, uint64_t, void* dst, uint64_t bytes) {
  glsl::Recorder& rec = *device->impl->self;
  if (!rec.allow_host_reads)
    return unexpected(rec, "the kernel reads device values back to the host");
  std::memset(dst, 0, bytes);
  ++rec.host_reads;
  return nullptr;
}

oi_status* buffer_copy(oi_device* device, oi_buffer*, uint64_t, oi_buffer*, uint64_t, uint64_t) {
  return unexpected(*device->impl->self, "the kernel copies buffers");
}

oi_status* synchronize(oi_device*) {
  return nullptr;
}

}  // namespace oi::vulkan

namespace oi::glsl {

Recorder::Recorder(const vulkan::DeviceCaps& caps) : impl_(new Impl{this, caps, {}, {}}) {}

Recorder::~Recorder() {
  delete impl_;
}

oi_buffer* Recorder::buffer(uint64_t bytes) {
  return new_buffer(*impl_, bytes, false);
}

uint32_t Recorder::id(const oi_buffer* b) const {
  return b->id;
}

uint64_t Recorder::bytes(uint32_t id) const {
  return impl_->buffers.at(id)->bytes;
}

bool Recorder::is_scratch(uint32_t id) const {
  return impl_->scratch.at(id);
}

void Recorder::run(const vulkan::VulkanKernel& kernel, oi_kernel_call call) {
  oi_device device{impl_};
  oi_kernel_def def{};
  def.struct_size = sizeof(def);
  def.abi_version = OI_PLUGIN_ABI_VERSION;
  def.op = kernel.op;
  def.input_dtypes = kernel.inputs.data();
  def.num_inputs = static_cast<uint32_t>(kernel.inputs.size());
  def.output_dtype = kernel.output;
  def.mode = kernel.mode;
  def.user_data = const_cast<vulkan::VulkanKernel*>(&kernel);
  call.host = &kRecordingHost;
  call.device = &device;
  call.kernel = &def;
  unexpected.clear();
  oi_status* status = kernel.run(&call);
  if (!unexpected.empty()) {
    delete status;
    invalid_plan(std::string(kernel.op) +
                 ": the Vulkan backend's kernel did what none does: " + unexpected);
  }
  if (status == nullptr) return;
  const auto code = static_cast<oi_status_code>(status->code);
  const std::string message = status->message;
  delete status;
  throw Recorder::KernelFailed{code, message};
}

const vulkan::VulkanKernel* find_vulkan_kernel(const std::string& op,
                                               const std::vector<uint32_t>& inputs, uint32_t output,
                                               uint32_t mode) {
  for (const vulkan::VulkanKernel& k : vulkan::kernel_list())
    if (op == k.op && k.inputs == inputs && k.output == output && k.mode == mode) return &k;
  return nullptr;
}

}  // namespace oi::glsl
