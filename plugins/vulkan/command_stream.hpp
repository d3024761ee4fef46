// A device's one ordered stream of GPU work, recorded into segments instead of submitted one
// command at a time, and replayed instead of recorded again when a stretch of work repeats.
// Every call is made under the device's mutex.
//
// A segment is a command buffer with its own parameter arena (host-visible, one slice per
// dispatch at minStorageBufferOffsetAlignment), staging arena (small uploads), descriptor pool
// and the list of the commands in it (their keys: pipeline, buffers, workgroup counts, copy
// ranges). Commands are recorded with a memory barrier after each (shader/transfer writes before
// any later shader/transfer access), so every command sees the results of the ones before it,
// also across segments: everything goes to one queue in order. A segment is submitted without
// waiting when it is full (kMaxCommands, an arena full) or, every idle_check commands, when the
// GPU has run out of work (then the unit's next such segment must hold twice as many commands);
// the CPU records the next one meanwhile.
//
// Replay (docs/vulkan.md, "Replay"): the commands between two transfers through the staging
// ring (downloads, synchronize, large uploads) form a unit. A finished unit's segments are kept
// (the last kMaxUnits units). When a new unit starts with the same command as a kept one, each
// command is compared with the kept unit's command at the same place instead of being recorded;
// a kept segment whose commands all compare equal is submitted again as it is (its parameters
// and small uploads are rewritten in its arenas when only their bytes differ). At the first
// difference (another pipeline or buffer, another workgroup count, a command more or less) the
// compared part of that segment is recorded afresh and the rest of the unit is recorded.
// Copies (the unaligned ones: device.cpp makes whole-word copies dispatches, whose offsets are
// parameters), and dispatches of pipelines seen with varying workgroup counts, sit in
// one-command segments: when only their range or workgroups differ, a replay records that
// segment again in place (patch) and goes on comparing.
//
// Large uploads and all downloads go through rings of persistent staging chunks
// (OPENINFER_VULKAN_STAGING_MB each), copied in pieces so that the CPU's copy of one piece
// overlaps the GPU's copy of the previous one; the CPU copies use several threads.
//
// Errors: a failed wait throws abi::StatusError at once; a failed submit that did not wait
// (its commands are lost) is kept and thrown by the next download() or synchronize().
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "backend.hpp"
#include "parallel_copy.hpp"
#include "vk_memory.hpp"

namespace oi::vulkan {

struct StreamSetup {
  vk::Device device;
  vk::Queue queue;
  uint32_t queue_family = 0;
  vk::PhysicalDeviceMemoryProperties memory;
  vk::DescriptorSetLayout set_layout;   // what dispatches' sets are allocated for
  vk::PipelineLayout pipeline_layout;   // what they are bound with
  vk::DeviceSize params_alignment = 4;  // minStorageBufferOffsetAlignment
};

// What makes two dispatches the same command: the pipeline, the buffers bound at 1..6 and the
// workgroup counts. The parameters are compared apart (their bytes can be rewritten).
struct DispatchKey {
  vk::Pipeline pipeline;
  std::array<vk::Buffer, kDataBindings> buffers;
  std::array<uint32_t, 3> groups{1, 1, 1};
  bool overlap_next = false;  // no barrier after it (Dispatch::overlap_next)
};

// Counts since the stream opened (OPENINFER_VULKAN_STATS prints them at close).
struct StreamStats {
  uint64_t commands = 0;
  uint64_t dispatches = 0;
  uint64_t submits = 0;
  uint64_t waits = 0;        // fence waits: round trips, and reuse of work still in flight
  uint64_t round_trips = 0;  // downloads and synchronize calls: the host waited for results
  uint64_t replayed = 0;     // commands not recorded: their segment was submitted again
  uint64_t replayed_segments = 0;
  uint64_t rewritten = 0;   // of the replayed: parameter or upload bytes rewritten
  uint64_t rerecorded = 0;  // differences found while comparing: recorded from there on
  uint64_t patched = 0;     // one-command segments recorded again in place (a new range)
  // Host time recording commands (dispatches, fills, copies) and comparing them for replay;
  // measured only with OPENINFER_VULKAN_STATS set.
  uint64_t record_ns = 0;
  uint64_t replay_ns = 0;
  uint64_t wait_ns = 0;       // host time blocked in fence waits (the GPU's work, not the host's)
  uint64_t staged_bytes = 0;  // through the staging ring
};

// Commands that write device memory (dispatches, fills, uploads, copies) recorded so far by the
// calling thread, on any stream: a kernel that declines its call must not have recorded any
// (kernel_registry.cpp checks).
uint64_t device_writes_on_this_thread();

class CommandStream {
 public:
  static constexpr uint32_t kMaxCommands = 256;          // a full segment is submitted
  static constexpr vk::DeviceSize kSmallUpload = 65536;  // larger ones take the staging ring
  static constexpr size_t kMaxUnits = 8;                 // units kept for replay
  static constexpr size_t kMaxKeptSegments = 256;  // and their segments (allocations), at most

  CommandStream();
  ~CommandStream();
  void open(const StreamSetup& setup);
  // Waits for everything (ignoring errors: the device goes away) and destroys what it holds.
  void close() noexcept;

  // Records (or replays) one dispatch with `params` bound at binding 0.
  void dispatch(const DispatchKey& key, std::span<const uint32_t> params);
  void fill_zero(vk::Buffer buffer);
  void upload(vk::Buffer dst, vk::DeviceSize offset, const void* src, vk::DeviceSize bytes);
  // Records a copy between device buffers (in order, no wait).
  void copy(vk::Buffer src, vk::DeviceSize src_offset, vk::Buffer dst, vk::DeviceSize dst_offset,
            vk::DeviceSize bytes);
  // Submits what is recorded, copies through the staging ring and waits.
  void download(vk::Buffer src, vk::DeviceSize offset, void* dst, vk::DeviceSize bytes);
  // Destroys `a` once every command recorded so far has completed; kept units that use it are
  // dropped.
  void release_later(Allocation a);
  // Submits what is recorded and waits for all of it.
  void synchronize();

  const StreamStats& stats() const { return stats_; }

 private:
  struct Segment;
  struct Key;
  struct Unit {
    std::vector<Segment*> segments;
    uint64_t used = 0;  // LRU stamp
  };

  // Commands.
  void command(const Key& key, std::span<const uint32_t> params, const void* data);
  bool replay(const Key& key, std::span<const uint32_t> params, const void* data);
  void record(const Key& key, std::span<const uint32_t> params, const void* data);
  void end_command(Segment& s);
  void diverge();  // the command differs from the kept unit's: record from here on
  bool isolated(const Key& key) const;
  void patch(Segment& s, const Key& key);
  static std::string describe_difference(const Key& kept, const Key& now);

  // Segments and units.
  Segment& open_segment();
  Segment* acquire_segment();
  void close_segment();  // the open segment joins the pending ones
  void hold(Segment* s);
  void drop(Segment* s);
  void end_unit();
  void keep_unit();
  void drop_unit(size_t index);

  // Submissions.
  void submit_pending();
  uint64_t submit(std::span<const vk::CommandBuffer> cmds, uint32_t commands);
  void poll();
  bool gpu_idle();
  void wait_until(uint64_t seq);
  void wait_all();
  void throw_failure();
  void reap();  // destroys what only completed work used

  // The staging rings: one for downloads (host-cached memory), one for uploads (the same, or
  // with OPENINFER_VULKAN_STAGING=rebar device-local mapped memory where the device has it,
  // with =wc host memory the host does not cache).
  struct Chunk {
    Allocation alloc;
    vk::CommandBuffer cmd;
    uint64_t seq = 0;
  };
  struct Ring {
    std::vector<Chunk> chunks;
    size_t next = 0;
    bool rebar = false;     // upload chunks in device-local memory mapped to the host
    bool uncached = false;  // upload chunks in host memory the host does not cache
  };
  // The ring's next chunk, holding at least `bytes`, its last copy over.
  Chunk& next_chunk(Ring& ring, vk::DeviceSize bytes, size_t& index);
  vk::CommandBuffer begin_transfer(Chunk& c);
  void upload_large(vk::Buffer dst, vk::DeviceSize offset, const std::byte* src,
                    vk::DeviceSize bytes);

  StreamSetup s_;
  uint32_t idle_check_ = 1;     // OPENINFER_VULKAN_IDLE_CHECK
  uint32_t idle_min_ = 1;       // commands a segment needs before an idle GPU submits it
  bool replay_enabled_ = true;  // OPENINFER_VULKAN_REPLAY=0 turns it off
  bool log_units_ = false;      // OPENINFER_VULKAN_STATS=units: a line per unit
  bool time_commands_ = false;  // OPENINFER_VULKAN_STATS set: record_ns and replay_ns kept
  vk::CommandPool command_pool_;

  std::vector<std::unique_ptr<Segment>> segments_;
  std::vector<Segment*> free_;     // held by no unit; reused once their work completed
  Segment* open_ = nullptr;        // being recorded
  std::vector<Segment*> pending_;  // closed (recorded or compared), not yet submitted
  uint32_t pending_commands_ = 0;
  std::vector<Segment*> unit_;  // the current unit's segments, open_ and pending_ included
  bool unit_fresh_ = true;      // no command yet in the current unit
  bool unit_tainted_ = false;   // a buffer it uses was destroyed, or a submit failed: not kept
  uint64_t unit_commands_ = 0, unit_replayed_ = 0;
  std::string unit_difference_;  // the first difference from the kept unit (units log)
  // Pipelines whose dispatches were seen with other workgroup counts in the same place: they
  // are recorded in segments of their own (copies always are).
  std::unordered_set<uint64_t> varying_;
  std::vector<Unit> kept_;
  uint64_t lru_clock_ = 0;
  // Comparing against a kept unit: its segments, and the next command's place in them.
  bool matching_ = false;
  std::vector<Segment*> match_;
  size_t match_segment_ = 0, match_command_ = 0;

  struct InFlight {
    uint64_t seq;
    vk::Fence fence;
  };
  std::deque<InFlight> in_flight_;
  std::vector<vk::Fence> free_fences_;
  uint64_t submitted_ = 0, completed_ = 0;
  std::vector<std::pair<uint64_t, Allocation>> doomed_;  // destroyed once completed_ >= first

  Ring down_, up_;
  vk::DeviceSize chunk_bytes_ = 16u << 20;
  ParallelCopy copier_;

  vk::DeviceSize params_wanted_ = 64 << 10;  // arena sizes, doubled when a segment fills one
  // Params arenas in host-writable device memory; OPENINFER_VULKAN_PARAMS=host: host memory.
  bool params_on_device_ = true;
  Allocation params_allocation(vk::DeviceSize bytes);
  vk::DeviceSize staging_wanted_ = 256 << 10;
  std::string failure_;  // a submit that failed with nobody waiting
  // OPENINFER_VULKAN_FAIL_SUBMIT=N: the Nth submit fails as a driver's would (tests the error
  // path without a broken driver; tests/vulkan/CMakeLists.txt).
  uint64_t fail_submit_ = 0;
  uint64_t submit_attempts_ = 0;
  StreamStats stats_;
};

}  // namespace oi::vulkan
