// A device's one ordered stream of GPU work, recorded into batches instead of submitted one
// command at a time. Every call is made under the device's mutex.
//
// A batch is a command buffer with its own fence, parameter arena (host-visible, one slice per
// dispatch at minStorageBufferOffsetAlignment), staging arena (transfers above 64 KiB or not
// word aligned) and descriptor pools. Commands are recorded into the open batch with a memory
// barrier after each (shader/transfer writes before any later shader/transfer access), so every
// command sees the results of the ones recorded before it, also across batches: they all go to
// one queue in order. A batch is submitted without waiting when it is full (kMaxCommands, an
// arena full) or, every idle_check_ commands, when the GPU has run out of work; the CPU records
// the next batch meanwhile and waits for a batch's fence only before reusing it. download() and
// synchronize() submit what is recorded and wait for it. Objects that recorded commands may
// still use are destroyed only once the batch that last could use them has completed.
//
// Errors: a failed wait throws abi::StatusError at once; a failed submit that did not wait
// (the batch's commands are lost) is kept and thrown by the next download() or synchronize().
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vk_memory.hpp"

namespace oi::vulkan {

struct StreamSetup {
  vk::Device device;
  vk::Queue queue;
  uint32_t queue_family = 0;
  vk::PhysicalDeviceMemoryProperties memory;
  vk::DescriptorSetLayout set_layout;   // what begin_dispatch's sets are allocated for
  uint32_t bindings = 0;                // storage buffer descriptors per set
  vk::DeviceSize params_alignment = 4;  // minStorageBufferOffsetAlignment
};

// Where one dispatch is recorded: the open batch's command buffer, a fresh descriptor set
// (valid until the batch completes) and the parameters' slice of the batch's arena.
struct DispatchSlot {
  vk::CommandBuffer cmd;
  vk::DescriptorSet set;
  vk::DescriptorBufferInfo params;
};

// Counts since the stream opened (OPENINFER_VULKAN_STATS prints them at close).
struct StreamStats {
  uint64_t commands = 0;
  uint64_t dispatches = 0;
  uint64_t submits = 0;
  uint64_t waits = 0;        // fence waits: round trips, and batches reused while in flight
  uint64_t round_trips = 0;  // downloads and synchronize calls: the host waited for results
};

// Commands that write device memory (dispatches, fills, uploads, copies) recorded so far by the
// calling thread, on any stream: a kernel that declines its call must not have recorded any
// (kernel_registry.cpp checks).
uint64_t device_writes_on_this_thread();

class CommandStream {
 public:
  static constexpr size_t kBatches = 3;          // the CPU records one while the GPU runs others
  static constexpr uint32_t kMaxCommands = 256;  // a full batch is submitted
  // Commands between looks at an idle GPU (OPENINFER_VULKAN_IDLE_CHECK overrides, for tuning).
  uint32_t idle_check_ = 1;
  static constexpr vk::DeviceSize kInlineUpload = 65536;  // vkCmdUpdateBuffer's limit

  void open(const StreamSetup& setup);
  // Waits for everything (ignoring errors: the device goes away) and destroys what it holds.
  void close() noexcept;

  // Copies `params` into the open batch's arena and allocates a descriptor set; the caller
  // writes the set, records the dispatch into slot.cmd, then calls end_command().
  DispatchSlot begin_dispatch(std::span<const uint32_t> params);
  // Ends a command recorded into the open batch: the barrier, then maybe a submit.
  void end_command();

  void fill_zero(vk::Buffer buffer);
  void upload(vk::Buffer dst, vk::DeviceSize offset, const void* src, vk::DeviceSize bytes);
  // Records a copy between device buffers (in order, no wait).
  void copy(vk::Buffer src, vk::DeviceSize src_offset, vk::Buffer dst, vk::DeviceSize dst_offset,
            vk::DeviceSize bytes);
  // Records the copy, submits and waits, then copies to `dst`.
  void download(vk::Buffer src, vk::DeviceSize offset, void* dst, vk::DeviceSize bytes);
  // Destroys `a` once every command recorded so far has completed.
  void release_later(Allocation a);
  // Submits what is recorded and waits for all of it.
  void synchronize();

  const StreamStats& stats() const { return stats_; }

 private:
  struct Arena {
    Allocation alloc;
    vk::DeviceSize used = 0;
  };
  enum class State { Idle, Recording, Submitted };
  struct Batch {
    vk::CommandBuffer cmd;
    vk::Fence fence;
    State state = State::Idle;
    uint32_t commands = 0;
    vk::DeviceSize inline_bytes = 0;  // vkCmdUpdateBuffer data kept in the command buffer
    Arena params;
    Arena staging;
    std::vector<vk::DescriptorPool> pools;
    size_t pool = 0;                 // the pool sets come from now
    uint32_t pool_sets = 0;          // sets taken from it
    std::vector<Allocation> doomed;  // destroyed when the batch has completed
  };

  Batch& recording();  // the open batch; waits for its fence first when it is still in flight
  void flush();        // submits the open batch, if any, without waiting
  void wait(Batch& b);
  void wait_all();
  void retire(Batch& b);
  void throw_failure();
  bool gpu_idle();
  vk::DescriptorSet allocate_set(Batch& b);
  // A slice of `bytes` in the open batch's arena (`which`), submitting the batch first when the
  // arena is full; returns the batch and the slice's offset.
  std::pair<Batch*, vk::DeviceSize> reserve(Arena Batch::*which, vk::DeviceSize bytes,
                                            vk::DeviceSize alignment, vk::DeviceSize& wanted);

  StreamSetup s_;
  vk::CommandPool command_pool_;
  std::array<Batch, kBatches> batches_;
  size_t current_ = 0;                       // the batch recorded into next
  size_t last_submitted_ = kBatches;         // kBatches: none yet
  vk::DeviceSize params_wanted_ = 64 << 10;  // arena sizes, doubled when a batch fills one
  vk::DeviceSize staging_wanted_ = 1 << 20;
  std::string failure_;  // a submit that failed with nobody waiting
  // OPENINFER_VULKAN_FAIL_SUBMIT=N: the Nth submit fails as a driver's would (tests the error
  // path without a broken driver; tests/vulkan/CMakeLists.txt).
  uint64_t fail_submit_ = 0;
  uint64_t submit_attempts_ = 0;
  StreamStats stats_;
};

}  // namespace oi::vulkan
