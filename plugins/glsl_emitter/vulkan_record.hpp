// The Vulkan backend's kernels (plugins/vulkan/kernels) run against a device that records
// instead of running: every Dispatch a kernel makes for an oi_kernel_call is kept, with the
// buffers it binds as the handles the caller gave (values of a plan) or as scratch buffers the
// kernel allocated. The glsl emitter writes the recorded dispatches into its manifest, so the
// generated program runs the backend's own shaders, parameters and workgroup counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"  // plugins/vulkan: DeviceCaps, Dispatch, kDataBindings
#include "kernel_registry.hpp"

namespace oi::glsl {

struct RecordedDispatch {
  vulkan::Dispatch job;
  std::array<uint32_t, vulkan::kDataBindings> buffer{};  // Recorder buffer ids, per data binding
};

class Recorder {
 public:
  explicit Recorder(const vulkan::DeviceCaps& caps);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // A handle standing for `bytes` of memory the caller names by the returned id.
  oi_buffer* buffer(uint64_t bytes);
  uint32_t id(const oi_buffer* b) const;
  uint64_t bytes(uint32_t id) const;
  // Buffers the kernels allocated (scratch), by id.
  bool is_scratch(uint32_t id) const;

  // Runs `kernel` on `call` (its device and host are filled in here), keeping its dispatches.
  // A status the kernel returns is thrown as KernelFailed with its code and message (the
  // caller refuses through refusal.hpp).
  struct KernelFailed {
    oi_status_code code;
    std::string message;
  };
  void run(const vulkan::VulkanKernel& kernel, oi_kernel_call call);

  // Reads of device memory back to the host (gather's index check): answered with zeros and
  // counted only while allowed; otherwise a read is refused (UNIMPLEMENTED), since the
  // generated program has no such value when it is emitted.
  bool allow_host_reads = false;
  uint32_t host_reads = 0;
  // Uploads of data the kernel computed on the host (rope's cos/sin table): allowed only where
  // the caller makes the generated program compute the same data at run time; the buffers are
  // listed here, the data dropped.
  bool allow_uploads = false;
  std::vector<uint32_t> uploaded;
  // Set when a kernel asked for what no Vulkan backend kernel asks of the recording device in
  // the cases allowed above (a host read or an upload elsewhere, a buffer copy, a dispatch
  // without buffers): run() then throws it as an invalid plan, not as the kernel's failure.
  std::string unexpected;

  std::vector<RecordedDispatch> dispatches;

  struct Impl;

 private:
  Impl* impl_;
};

// The kernel the Vulkan backend registers for (op, input dtypes, output dtype, mode), or null;
// its `needs` (f64, i64) is for the caller to check against the device description.
const vulkan::VulkanKernel* find_vulkan_kernel(const std::string& op,
                                               const std::vector<uint32_t>& inputs, uint32_t output,
                                               uint32_t mode);

}  // namespace oi::glsl
