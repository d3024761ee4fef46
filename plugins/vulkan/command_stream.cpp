#include "command_stream.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

constexpr vk::DeviceSize kMaxArena = 16u << 20;
constexpr size_t kChunks = 3;        // staging chunks per direction: the CPU fills one while the
                                     // GPU copies another
constexpr size_t kMaxInFlight = 16;  // submissions ahead of the GPU before the CPU waits

thread_local uint64_t t_device_writes = 0;

vk::DeviceSize align_up(vk::DeviceSize v, vk::DeviceSize a) {
  return (v + a - 1) / a * a;
}

template <class Handle>
uint64_t bits(Handle h) {
  const auto c = static_cast<typename Handle::CType>(h);
  uint64_t v = 0;
  std::memcpy(&v, &c, sizeof c);
  return v;
}

template <class Handle>
Handle handle(uint64_t v) {
  typename Handle::CType c;
  std::memcpy(&c, &v, sizeof c);
  return Handle(c);
}

// Writes (shader or transfer) before, any shader or transfer access after.
void command_barrier(vk::CommandBuffer cmd) {
  using A = vk::AccessFlagBits;
  using S = vk::PipelineStageFlagBits;
  vk::MemoryBarrier barrier(A::eShaderWrite | A::eTransferWrite, A::eShaderRead | A::eShaderWrite |
                                                                     A::eTransferRead |
                                                                     A::eTransferWrite);
  cmd.pipelineBarrier(S::eComputeShader | S::eTransfer, S::eComputeShader | S::eTransfer, {},
                      barrier, {}, {});
}

// Everything submitted earlier is visible to what follows in this command buffer.
void full_barrier(vk::CommandBuffer cmd) {
  vk::MemoryBarrier barrier(vk::AccessFlagBits::eMemoryWrite,
                            vk::AccessFlagBits::eMemoryRead | vk::AccessFlagBits::eMemoryWrite);
  cmd.pipelineBarrier(vk::PipelineStageFlagBits::eAllCommands,
                      vk::PipelineStageFlagBits::eAllCommands, {}, barrier, {}, {});
}

// Results visible to the host once the fence signals.
void host_barrier(vk::CommandBuffer cmd) {
  vk::MemoryBarrier to_host(vk::AccessFlagBits::eMemoryWrite, vk::AccessFlagBits::eHostRead);
  cmd.pipelineBarrier(vk::PipelineStageFlagBits::eAllCommands, vk::PipelineStageFlagBits::eHost, {},
                      to_host, {}, {});
}

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

struct Arena {
  Allocation alloc;
  vk::DeviceSize used = 0;
};

// A slice of `bytes` at `alignment` in the arena, if it fits.
std::optional<vk::DeviceSize> fit(Arena& arena, vk::DeviceSize bytes, vk::DeviceSize alignment) {
  const vk::DeviceSize at = align_up(arena.used, alignment);
  if (at + bytes > arena.alloc.size) return std::nullopt;
  arena.used = at + bytes;
  return at;
}

}  // namespace

uint64_t device_writes_on_this_thread() {
  return t_device_writes;
}

// One command as replay compares it.
struct CommandStream::Key {
  enum Kind : uint32_t { Dispatch, Fill, Copy, Upload };
  uint32_t kind = Dispatch;
  uint32_t words = 0;   // dispatch: parameter words
  uint64_t target = 0;  // dispatch: the pipeline; otherwise the destination buffer
  std::array<uint64_t, kDataBindings> buffers{};  // dispatch: bindings 1..6; copy: [0] = source
  uint64_t a = 0, b = 0, c = 0;  // dispatch: workgroups; copy: offsets and bytes; upload: offset
                                 // and bytes
  bool overlap = false;          // dispatch: no barrier after it (the next may run alongside)
  bool operator==(const Key&) const = default;
  bool uses(uint64_t buffer) const {
    if (kind != Dispatch && target == buffer) return true;
    return std::find(buffers.begin(), buffers.end(), buffer) != buffers.end();
  }
};

// What differs between a kept command and the one issued at its place (the units log).
std::string CommandStream::describe_difference(const Key& kept, const Key& now) {
  static const char* const kinds[] = {"dispatch", "fill", "copy", "upload"};
  std::string what = std::string("a ") + kinds[now.kind];
  if (kept.kind != now.kind) return what + " where a " + kinds[kept.kind] + " was";
  if (now.kind == Key::Dispatch) {
    if (kept.target != now.target) return what + " with another pipeline";
    if (kept.buffers != now.buffers) return what + " with other buffers";
    if (kept.words != now.words) return what + " with another parameter count";
    if (kept.overlap != now.overlap)
      return what + " with a barrier where none was, or none where one was";
    return what + " with other workgroup counts";
  }
  if (kept.target != now.target || kept.buffers != now.buffers) return what + " to another buffer";
  return what + " of another range";
}

struct CommandStream::Segment {
  struct Slot {
    vk::DeviceSize at = 0;  // the parameters' (dispatch) or the data's (upload) arena offset
    uint32_t words_at = 0;  // dispatch: where `words` keeps a copy of the parameters
    vk::DescriptorSet set;  // dispatch: its descriptor set
  };
  vk::CommandBuffer cmd;
  vk::DescriptorPool pool;
  Arena params;
  Arena staging;
  std::vector<Key> keys;
  std::vector<Slot> slots;
  std::vector<uint32_t> words;
  uint64_t seq = 0;   // the submission that last ran it
  uint32_t refs = 0;  // units holding it
  bool used = false;  // recorded since created: reset before recording again
};

CommandStream::CommandStream() = default;
CommandStream::~CommandStream() = default;

void CommandStream::open(const StreamSetup& setup) {
  s_ = setup;
  if (const char* env = std::getenv("OPENINFER_VULKAN_IDLE_CHECK"); env != nullptr) {
    const long n = std::strtol(env, nullptr, 10);
    if (n >= 1 && n <= 4096) idle_check_ = static_cast<uint32_t>(n);
  }
  if (const char* env = std::getenv("OPENINFER_VULKAN_FAIL_SUBMIT"); env != nullptr) {
    fail_submit_ = std::strtoull(env, nullptr, 10);
  }
  if (const char* env = std::getenv("OPENINFER_VULKAN_STATS"); env != nullptr) {
    log_units_ = std::strcmp(env, "units") == 0;
    time_commands_ = *env != '\0';
  }
  if (const char* env = std::getenv("OPENINFER_VULKAN_STAGING"); env != nullptr) {
    up_.rebar = std::strcmp(env, "rebar") == 0;
    up_.uncached = std::strcmp(env, "wc") == 0;
  }
  if (const char* env = std::getenv("OPENINFER_VULKAN_STAGING_MB"); env != nullptr) {
    const long mb = std::strtol(env, nullptr, 10);
    if (mb >= 1 && mb <= 1024) chunk_bytes_ = static_cast<vk::DeviceSize>(mb) << 20;
  }
  if (const char* env = std::getenv("OPENINFER_VULKAN_PARAMS"); env != nullptr) {
    params_on_device_ = std::strcmp(env, "host") != 0;
  }
  command_pool_ = s_.device.createCommandPool(vk::CommandPoolCreateInfo(
      vk::CommandPoolCreateFlagBits::eResetCommandBuffer, s_.queue_family));
}

// A params arena: in device memory the host can write (resizable BAR) where the device has it,
// else in host memory. Every dispatch's shader reads its parameters first, and after the
// barrier before it from memory, not a cache: across the bus that read cost the H200 about
// 2.7 us a dispatch (docs/vulkan.md, "Where the per-node time goes").
Allocation CommandStream::params_allocation(vk::DeviceSize bytes) {
  if (params_on_device_) {
    try {
      return make_mapped_device_allocation(s_.device, s_.memory, bytes);
    } catch (const abi::StatusError&) {
      params_on_device_ = false;  // none on this device: host memory from now on
    }
  }
  return make_allocation(s_.device, s_.memory, bytes, true);
}

void CommandStream::close() noexcept {
  if (!s_.device) return;
  try {
    end_unit();
  } catch (...) {
  }
  try {
    s_.device.waitIdle();
  } catch (...) {  // device lost: nothing runs any more either way
  }
  for (auto& seg : segments_) {
    if (seg->pool) s_.device.destroyDescriptorPool(seg->pool);
    release(s_.device, seg->params.alloc);
    release(s_.device, seg->staging.alloc);
  }
  segments_.clear();
  free_.clear();
  kept_.clear();
  unit_.clear();
  pending_.clear();
  open_ = nullptr;
  for (Ring* ring : {&down_, &up_}) {
    for (Chunk& c : ring->chunks) release(s_.device, c.alloc);
    ring->chunks.clear();
  }
  for (auto& [seq, a] : doomed_) release(s_.device, a);
  doomed_.clear();
  for (const InFlight& f : in_flight_) s_.device.destroyFence(f.fence);
  in_flight_.clear();
  for (vk::Fence f : free_fences_) s_.device.destroyFence(f);
  free_fences_.clear();
  if (command_pool_) s_.device.destroyCommandPool(command_pool_);  // frees the buffers
  command_pool_ = nullptr;
  if (const char* env = std::getenv("OPENINFER_VULKAN_STATS"); env != nullptr && *env != '\0') {
    const uint64_t recorded = stats_.commands - stats_.replayed;
    char line[640];
    std::snprintf(
        line, sizeof line,
        "%llu commands (%llu dispatches) in %llu submits, %llu waits, %llu host round trips; "
        "%llu replayed (%llu segments submitted again, %llu with rewritten bytes), %llu "
        "re-recorded after a difference, %llu patched in place; host %.2f us per recorded "
        "command, %.2f us per replayed one; %llu bytes staged; %.1f ms waiting for the GPU",
        static_cast<unsigned long long>(stats_.commands),
        static_cast<unsigned long long>(stats_.dispatches),
        static_cast<unsigned long long>(stats_.submits),
        static_cast<unsigned long long>(stats_.waits),
        static_cast<unsigned long long>(stats_.round_trips),
        static_cast<unsigned long long>(stats_.replayed),
        static_cast<unsigned long long>(stats_.replayed_segments),
        static_cast<unsigned long long>(stats_.rewritten),
        static_cast<unsigned long long>(stats_.rerecorded),
        static_cast<unsigned long long>(stats_.patched),
        recorded ? stats_.record_ns / 1e3 / static_cast<double>(recorded) : 0.0,
        stats_.replayed ? stats_.replay_ns / 1e3 / static_cast<double>(stats_.replayed) : 0.0,
        static_cast<unsigned long long>(stats_.staged_bytes), stats_.wait_ns / 1e6);
    abi::log(host(), OI_LOG_INFO, line);  // "plugin 'vulkan': ..." on stderr by default
  }
  s_ = {};
}

// ---- Commands ----------------------------------------------------------------------------

void CommandStream::dispatch(const DispatchKey& key, std::span<const uint32_t> params) {
  Key k;
  k.kind = Key::Dispatch;
  k.words = static_cast<uint32_t>(params.size());
  k.target = bits(key.pipeline);
  for (size_t i = 0; i < kDataBindings; ++i) k.buffers[i] = bits(key.buffers[i]);
  k.a = key.groups[0];
  k.b = key.groups[1];
  k.c = key.groups[2];
  k.overlap = key.overlap_next;
  command(k, params, nullptr);
}

void CommandStream::fill_zero(vk::Buffer buffer) {
  Key k;
  k.kind = Key::Fill;
  k.target = bits(buffer);
  command(k, {}, nullptr);
}

void CommandStream::copy(vk::Buffer src, vk::DeviceSize src_offset, vk::Buffer dst,
                         vk::DeviceSize dst_offset, vk::DeviceSize bytes) {
  Key k;
  k.kind = Key::Copy;
  k.target = bits(dst);
  k.buffers[0] = bits(src);
  k.a = src_offset;
  k.b = dst_offset;
  k.c = bytes;
  command(k, {}, nullptr);
}

void CommandStream::upload(vk::Buffer dst, vk::DeviceSize offset, const void* src,
                           vk::DeviceSize bytes) {
  if (bytes > kSmallUpload) {
    ++t_device_writes;
    end_unit();
    upload_large(dst, offset, static_cast<const std::byte*>(src), bytes);
    return;
  }
  Key k;
  k.kind = Key::Upload;
  k.target = bits(dst);
  k.a = offset;
  k.b = bytes;
  command(k, {}, src);
}

void CommandStream::command(const Key& key, std::span<const uint32_t> params, const void* data) {
  ++t_device_writes;
  ++stats_.commands;
  ++unit_commands_;
  if (key.kind == Key::Dispatch) ++stats_.dispatches;
  if (unit_fresh_) {
    unit_fresh_ = false;
    // Read at each unit, so that a process can compare replay on and off (vulkan_bench).
    const char* env = std::getenv("OPENINFER_VULKAN_REPLAY");
    replay_enabled_ = env == nullptr || std::strcmp(env, "0") != 0;
    // The most recently used kept unit that starts with this command, if any.
    Unit* best = nullptr;
    if (replay_enabled_) {
      for (Unit& u : kept_) {
        if (u.segments.front()->keys.front() == key && (!best || u.used > best->used)) best = &u;
      }
    }
    if (best != nullptr) {
      best->used = ++lru_clock_;
      matching_ = true;
      match_ = best->segments;
      match_segment_ = match_command_ = 0;
    }
  }
  // Two clock reads cost as much as a replayed command's comparison: only for the stats line.
  const uint64_t start = time_commands_ ? now_ns() : 0;
  if (matching_ && replay(key, params, data)) {
    if (time_commands_) stats_.replay_ns += now_ns() - start;
    return;
  }
  record(key, params, data);
  if (time_commands_) stats_.record_ns += now_ns() - start;
}

bool CommandStream::replay(const Key& key, std::span<const uint32_t> params, const void* data) {
  Segment& s = *match_[match_segment_];
  // Its last run must be over before its arenas are rewritten and it is submitted again.
  if (match_command_ == 0 && s.seq > completed_) wait_until(s.seq);
  bool patched = false;
  if (!(s.keys[match_command_] == key)) {
    const Key& kept = s.keys[match_command_];
    const bool same_dispatch = key.kind == Key::Dispatch && kept.kind == Key::Dispatch &&
                               kept.target == key.target && kept.buffers == key.buffers &&
                               kept.words == key.words;
    const bool same_copy = key.kind == Key::Copy && kept.kind == Key::Copy &&
                           kept.target == key.target && kept.buffers == key.buffers;
    if ((same_dispatch || same_copy) && s.keys.size() == 1) {
      patch(s, key);  // only the range or the workgroups differ: recorded again in place
      patched = true;
    } else {
      // Workgroups that vary: such dispatches get segments of their own from now on.
      if (same_dispatch) varying_.insert(key.target);
      if (log_units_ && unit_difference_.empty()) unit_difference_ = describe_difference(kept, key);
      diverge();
      return false;
    }
  }
  const Segment::Slot& slot = s.slots[match_command_];
  auto* arena = static_cast<std::byte*>(key.kind == Key::Upload ? s.staging.alloc.mapped
                                                                : s.params.alloc.mapped);
  if (key.kind == Key::Dispatch && !params.empty() &&
      std::memcmp(s.words.data() + slot.words_at, params.data(), params.size_bytes()) != 0) {
    std::memcpy(s.words.data() + slot.words_at, params.data(), params.size_bytes());
    std::memcpy(arena + slot.at, params.data(), params.size_bytes());
    ++stats_.rewritten;
  } else if (key.kind == Key::Upload) {
    std::memcpy(arena + slot.at, data, key.b);
  }
  if (patched) {
    ++stats_.patched;
  } else {
    ++stats_.replayed;
    ++unit_replayed_;
  }
  if (++match_command_ < s.keys.size()) return true;
  // The whole segment compared equal: it runs again as recorded.
  hold(&s);
  unit_.push_back(&s);
  pending_.push_back(&s);
  pending_commands_ += static_cast<uint32_t>(s.keys.size());
  ++stats_.replayed_segments;
  match_command_ = 0;
  if (++match_segment_ == match_.size()) {  // a longer unit records the rest
    matching_ = false;
    match_.clear();
  }
  if (pending_commands_ >= kMaxCommands || gpu_idle()) submit_pending();
  return true;
}

void CommandStream::diverge() {
  Segment& s = *match_[match_segment_];
  const size_t compared = match_command_;
  matching_ = false;
  match_.clear();
  ++stats_.rerecorded;
  stats_.replayed -= compared;
  unit_replayed_ -= compared;
  // The compared commands of this segment were not submitted: record them (with the bytes
  // just written into the kept segment's arenas).
  for (size_t i = 0; i < compared; ++i) {
    const Key& k = s.keys[i];
    const Segment::Slot& slot = s.slots[i];
    if (k.kind == Key::Dispatch) {
      record(k, std::span(s.words.data() + slot.words_at, k.words), nullptr);
    } else if (k.kind == Key::Upload) {
      record(k, {}, static_cast<const std::byte*>(s.staging.alloc.mapped) + slot.at);
    } else {
      record(k, {}, nullptr);
    }
  }
}

bool CommandStream::isolated(const Key& key) const {
  return key.kind == Key::Copy || (key.kind == Key::Dispatch && varying_.count(key.target) != 0);
}

void CommandStream::record(const Key& key, std::span<const uint32_t> params, const void* data) {
  // A command whose range or workgroup counts vary between units goes into a segment of its
  // own, which a replay records again in place (patch) when only those differ.
  const bool isolate = isolated(key);
  if (isolate && open_ != nullptr && !open_->keys.empty()) close_segment();
  Segment* s = &open_segment();
  Segment::Slot slot;
  // A slice of one of the open segment's arenas; a full one closes the segment (later ones get
  // a larger arena) and the slice comes from the next.
  auto reserve = [&](Arena Segment::*which, vk::DeviceSize bytes, vk::DeviceSize alignment,
                     vk::DeviceSize& wanted) {
    std::optional<vk::DeviceSize> at = fit(s->*which, bytes, alignment);
    if (at) return *at;
    if ((s->*which).used > 0) {  // full: commands recorded refer to it
      wanted = std::min(std::max(wanted, 2 * (s->*which).alloc.size), kMaxArena);
      close_segment();
      s = &open_segment();
    }
    Arena& arena = s->*which;
    if (arena.alloc.size < bytes || arena.alloc.size < wanted) {
      // Empty (or never allocated): nothing recorded refers to it.
      release(s_.device, arena.alloc);
      const vk::DeviceSize size = std::max(wanted, std::bit_ceil(bytes));
      arena.alloc = which == &Segment::params ? params_allocation(size)
                                              : make_allocation(s_.device, s_.memory, size, true);
      arena.used = 0;
    }
    return *fit(arena, bytes, alignment);
  };
  switch (key.kind) {
    case Key::Dispatch: {
      const vk::DeviceSize bytes = std::max<vk::DeviceSize>(params.size_bytes(), 4);
      slot.at = reserve(&Segment::params, bytes, s_.params_alignment, params_wanted_);
      if (!params.empty()) {
        std::memcpy(static_cast<std::byte*>(s->params.alloc.mapped) + slot.at, params.data(),
                    params.size_bytes());
      }
      slot.words_at = static_cast<uint32_t>(s->words.size());
      s->words.insert(s->words.end(), params.begin(), params.end());
      vk::DescriptorSetAllocateInfo info(s->pool, s_.set_layout);
      vk::DescriptorSet set;
      const vk::Result r = s_.device.allocateDescriptorSets(&info, &set);
      if (r != vk::Result::eSuccess) {
        throw abi::StatusError(OI_STATUS_INTERNAL,
                               "Vulkan descriptor set allocation: " + vk::to_string(r));
      }
      std::array<vk::DescriptorBufferInfo, kDataBindings + 1> infos;
      infos[0] = vk::DescriptorBufferInfo(s->params.alloc.buffer, slot.at, bytes);
      for (size_t i = 0; i < kDataBindings; ++i) {
        infos[i + 1] =
            vk::DescriptorBufferInfo(handle<vk::Buffer>(key.buffers[i]), 0, VK_WHOLE_SIZE);
      }
      std::array<vk::WriteDescriptorSet, kDataBindings + 1> writes;
      for (uint32_t i = 0; i < kDataBindings + 1; ++i) {
        writes[i] = vk::WriteDescriptorSet(set, i, 0, 1, vk::DescriptorType::eStorageBuffer,
                                           nullptr, &infos[i]);
      }
      s_.device.updateDescriptorSets(writes, {});
      slot.set = set;
      s->cmd.bindPipeline(vk::PipelineBindPoint::eCompute, handle<vk::Pipeline>(key.target));
      s->cmd.bindDescriptorSets(vk::PipelineBindPoint::eCompute, s_.pipeline_layout, 0, set, {});
      s->cmd.dispatch(static_cast<uint32_t>(key.a), static_cast<uint32_t>(key.b),
                      static_cast<uint32_t>(key.c));
      break;
    }
    case Key::Fill:
      s->cmd.fillBuffer(handle<vk::Buffer>(key.target), 0, VK_WHOLE_SIZE, 0);
      break;
    case Key::Copy:
      s->cmd.copyBuffer(handle<vk::Buffer>(key.buffers[0]), handle<vk::Buffer>(key.target),
                        vk::BufferCopy(key.a, key.b, key.c));
      break;
    case Key::Upload:
      slot.at = reserve(&Segment::staging, key.b, 16, staging_wanted_);
      std::memcpy(static_cast<std::byte*>(s->staging.alloc.mapped) + slot.at, data, key.b);
      s->cmd.copyBuffer(s->staging.alloc.buffer, handle<vk::Buffer>(key.target),
                        vk::BufferCopy(slot.at, key.a, key.b));
      break;
  }
  if (!key.overlap) command_barrier(s->cmd);  // a segment ends and begins with one anyway
  s->keys.push_back(key);
  s->slots.push_back(slot);
  if (isolate) {
    close_segment();
    if (gpu_idle()) submit_pending();
    return;
  }
  end_command(*s);
}

void CommandStream::patch(Segment& s, const Key& key) {
  const Segment::Slot& slot = s.slots[0];
  s.cmd.begin(vk::CommandBufferBeginInfo{});
  full_barrier(s.cmd);
  if (key.kind == Key::Copy) {
    s.cmd.copyBuffer(handle<vk::Buffer>(key.buffers[0]), handle<vk::Buffer>(key.target),
                     vk::BufferCopy(key.a, key.b, key.c));
  } else {  // the same pipeline, buffers and parameter slot: only the workgroups differ
    s.cmd.bindPipeline(vk::PipelineBindPoint::eCompute, handle<vk::Pipeline>(key.target));
    s.cmd.bindDescriptorSets(vk::PipelineBindPoint::eCompute, s_.pipeline_layout, 0, slot.set, {});
    s.cmd.dispatch(static_cast<uint32_t>(key.a), static_cast<uint32_t>(key.b),
                   static_cast<uint32_t>(key.c));
  }
  command_barrier(s.cmd);
  s.cmd.end();
  s.keys[0] = key;
}

void CommandStream::end_command(Segment& s) {
  const auto n = static_cast<uint32_t>(s.keys.size());
  if (n >= kMaxCommands) {
    close_segment();
    submit_pending();
  } else if (n >= idle_min_ && n % idle_check_ == 0 && gpu_idle()) {
    // The GPU would wait for us otherwise. The next segment of the unit that goes out this
    // way holds twice as many commands: tiny dispatches (faster on the GPU than recorded) would
    // otherwise make one segment each, and a replay that many command buffers.
    idle_min_ = std::min(kMaxCommands, 2 * n);
    close_segment();
    submit_pending();
  }
}

// ---- Segments and units ------------------------------------------------------------------

CommandStream::Segment& CommandStream::open_segment() {
  if (open_ != nullptr) return *open_;
  Segment* s = acquire_segment();
  s->cmd.begin(vk::CommandBufferBeginInfo{});  // may be submitted again: not one-time
  full_barrier(s->cmd);
  s->used = true;
  hold(s);
  unit_.push_back(s);
  open_ = s;
  return *s;
}

CommandStream::Segment* CommandStream::acquire_segment() {
  poll();
  Segment* s = nullptr;
  for (size_t i = 0; i < free_.size(); ++i) {
    if (free_[i]->seq <= completed_) {
      s = free_[i];
      free_[i] = free_.back();
      free_.pop_back();
      break;
    }
  }
  if (s == nullptr && !free_.empty() && segments_.size() >= kMaxKeptSegments) {
    s = free_.front();  // wait rather than grow without bound
    free_.erase(free_.begin());
    wait_until(s->seq);
  }
  if (s == nullptr) {
    auto fresh = std::make_unique<Segment>();
    fresh->cmd = s_.device.allocateCommandBuffers(
        vk::CommandBufferAllocateInfo(command_pool_, vk::CommandBufferLevel::ePrimary, 1))[0];
    vk::DescriptorPoolSize size(vk::DescriptorType::eStorageBuffer,
                                kMaxCommands * (kDataBindings + 1));
    fresh->pool =
        s_.device.createDescriptorPool(vk::DescriptorPoolCreateInfo({}, kMaxCommands, size));
    s = fresh.get();
    segments_.push_back(std::move(fresh));
  }
  if (s->used) {
    s_.device.resetDescriptorPool(s->pool);
    s->keys.clear();
    s->slots.clear();
    s->words.clear();
    s->params.used = 0;
    s->staging.used = 0;
    s->used = false;
  }
  if (s->params.alloc.size < params_wanted_) {
    release(s_.device, s->params.alloc);
    s->params.alloc = params_allocation(params_wanted_);
  }
  return s;
}

void CommandStream::close_segment() {
  if (open_ == nullptr) return;
  Segment* s = open_;
  open_ = nullptr;
  pending_.push_back(s);
  pending_commands_ += static_cast<uint32_t>(s->keys.size());
  s->cmd.end();
}

void CommandStream::hold(Segment* s) {
  ++s->refs;
}

void CommandStream::drop(Segment* s) {
  if (--s->refs == 0) free_.push_back(s);
}

void CommandStream::end_unit() {
  if (matching_ && match_command_ > 0) diverge();  // a shorter unit: record the compared part
  matching_ = false;
  match_.clear();
  close_segment();
  submit_pending();
  if (log_units_ && unit_commands_ > 0) {
    char line[128];
    std::snprintf(line, sizeof line, "unit of %llu commands: %llu replayed, %llu recorded",
                  static_cast<unsigned long long>(unit_commands_),
                  static_cast<unsigned long long>(unit_replayed_),
                  static_cast<unsigned long long>(unit_commands_ - unit_replayed_));
    std::string text = line;
    if (!unit_difference_.empty()) text += " (from " + unit_difference_ + ")";
    abi::log(host(), OI_LOG_INFO, text.c_str());
  }
  keep_unit();
  unit_fresh_ = true;
  unit_tainted_ = false;
  unit_difference_.clear();
  idle_min_ = 1;
  unit_commands_ = unit_replayed_ = 0;
}

void CommandStream::keep_unit() {
  std::vector<Segment*> unit = std::move(unit_);
  unit_.clear();
  if (unit.empty()) return;
  if (!replay_enabled_ || unit_tainted_) {
    for (Segment* s : unit) drop(s);
    return;
  }
  for (Unit& u : kept_) {
    if (u.segments == unit) {  // replayed whole: already kept
      u.used = ++lru_clock_;
      for (Segment* s : unit) drop(s);
      return;
    }
  }
  kept_.push_back({std::move(unit), ++lru_clock_});
  size_t segments = 0;
  for (const Unit& u : kept_) segments += u.segments.size();
  while (!kept_.empty() && (kept_.size() > kMaxUnits || segments > kMaxKeptSegments)) {
    size_t oldest = 0;
    for (size_t i = 1; i < kept_.size(); ++i)
      if (kept_[i].used < kept_[oldest].used) oldest = i;
    segments -= kept_[oldest].segments.size();
    drop_unit(oldest);
  }
}

void CommandStream::drop_unit(size_t index) {
  for (Segment* s : kept_[index].segments) drop(s);
  kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(index));
}

void CommandStream::release_later(Allocation a) {
  // Nothing recorded later may use it, and no kept command buffer may be submitted again.
  if (matching_) diverge();
  const uint64_t id = bits(a.buffer);
  auto uses = [&](const std::vector<Segment*>& segments) {
    for (const Segment* s : segments)
      for (const Key& k : s->keys)
        if (k.uses(id)) return true;
    return false;
  };
  if (uses(unit_)) unit_tainted_ = true;
  for (size_t i = kept_.size(); i-- > 0;)
    if (uses(kept_[i].segments)) drop_unit(i);
  const uint64_t seq = open_ != nullptr || !pending_.empty() ? submitted_ + 1 : submitted_;
  if (seq <= completed_) {
    release(s_.device, a);
  } else {
    doomed_.emplace_back(seq, a);
  }
}

// ---- Submissions -------------------------------------------------------------------------

void CommandStream::submit_pending() {
  if (pending_.empty()) return;
  std::vector<vk::CommandBuffer> cmds;
  cmds.reserve(pending_.size());
  for (const Segment* s : pending_) cmds.push_back(s->cmd);
  const uint64_t seq = submit(cmds, pending_commands_);
  for (Segment* s : pending_) s->seq = seq;
  pending_.clear();
  pending_commands_ = 0;
}

uint64_t CommandStream::submit(std::span<const vk::CommandBuffer> cmds, uint32_t commands) {
  if (in_flight_.size() >= kMaxInFlight) wait_until(in_flight_.front().seq);
  vk::Fence fence;
  if (free_fences_.empty()) {
    fence = s_.device.createFence({});
  } else {
    fence = free_fences_.back();
    free_fences_.pop_back();
  }
  const uint64_t seq = ++submitted_;
  try {
    if (++submit_attempts_ == fail_submit_) {
      throw vk::DeviceLostError("injected by OPENINFER_VULKAN_FAIL_SUBMIT");
    }
    s_.queue.submit(vk::SubmitInfo({}, {}, cmds), fence);
    ++stats_.submits;
    in_flight_.push_back({seq, fence});
  } catch (const vk::SystemError& e) {
    // The commands never run. Wait for the earlier ones (a lost device waits for nothing),
    // then count this submission as done.
    if (failure_.empty()) {
      failure_ = "Vulkan: submitting a batch of " + std::to_string(commands) +
                 " commands failed (their results are lost): " + e.what();
    }
    free_fences_.push_back(fence);
    try {
      s_.device.waitIdle();
    } catch (...) {
    }
    for (const InFlight& f : in_flight_) {
      try {
        s_.device.resetFences(f.fence);
      } catch (...) {
      }
      free_fences_.push_back(f.fence);
    }
    in_flight_.clear();
    completed_ = seq;
    unit_tainted_ = true;
    reap();
  }
  return seq;
}

void CommandStream::poll() {
  while (!in_flight_.empty()) {
    const InFlight f = in_flight_.front();
    try {
      if (s_.device.getFenceStatus(f.fence) != vk::Result::eSuccess) break;
    } catch (const vk::SystemError&) {
      break;  // the next wait reports it
    }
    s_.device.resetFences(f.fence);
    free_fences_.push_back(f.fence);
    in_flight_.pop_front();
    completed_ = f.seq;
  }
  reap();
}

bool CommandStream::gpu_idle() {
  if (in_flight_.empty()) return true;
  try {
    if (s_.device.getFenceStatus(in_flight_.back().fence) != vk::Result::eSuccess) return false;
  } catch (const vk::SystemError&) {
    return true;  // the next wait reports it
  }
  poll();
  return true;
}

void CommandStream::wait_until(uint64_t seq) {
  if (in_flight_.empty() || in_flight_.front().seq > seq) {
    reap();
    return;
  }
  const uint64_t start = now_ns();
  bool waited = false;
  while (!in_flight_.empty() && in_flight_.front().seq <= seq) {
    const InFlight f = in_flight_.front();
    try {
      const vk::Result r = s_.device.waitForFences(f.fence, VK_TRUE, UINT64_MAX);
      if (r != vk::Result::eSuccess) {
        throw abi::StatusError(OI_STATUS_INTERNAL, "Vulkan fence wait: " + vk::to_string(r));
      }
      s_.device.resetFences(f.fence);
    } catch (const vk::SystemError& e) {
      throw abi::StatusError(
          OI_STATUS_INTERNAL,
          std::string("Vulkan: waiting for submitted commands failed: ") + e.what());
    }
    waited = true;
    free_fences_.push_back(f.fence);
    in_flight_.pop_front();
    completed_ = f.seq;
  }
  if (waited) ++stats_.waits;
  stats_.wait_ns += now_ns() - start;
  reap();
}

void CommandStream::wait_all() {
  close_segment();
  submit_pending();
  wait_until(submitted_);
}

void CommandStream::throw_failure() {
  if (failure_.empty()) return;
  const std::string message = std::move(failure_);
  failure_.clear();
  throw abi::StatusError(OI_STATUS_INTERNAL, message);
}

void CommandStream::reap() {
  if (doomed_.empty()) return;
  auto done = [&](const std::pair<uint64_t, Allocation>& d) { return d.first <= completed_; };
  for (auto& d : doomed_)
    if (done(d)) release(s_.device, d.second);
  std::erase_if(doomed_, done);
}

void CommandStream::synchronize() {
  ++stats_.round_trips;
  end_unit();
  wait_all();
  throw_failure();
}

// ---- The staging ring --------------------------------------------------------------------

CommandStream::Chunk& CommandStream::next_chunk(Ring& ring, vk::DeviceSize bytes, size_t& index) {
  if (ring.chunks.empty()) {
    ring.chunks.resize(kChunks);
    const auto cmds = s_.device.allocateCommandBuffers(vk::CommandBufferAllocateInfo(
        command_pool_, vk::CommandBufferLevel::ePrimary, static_cast<uint32_t>(kChunks)));
    for (size_t k = 0; k < kChunks; ++k) ring.chunks[k].cmd = cmds[k];
  }
  index = ring.next;
  ring.next = (ring.next + 1) % kChunks;
  Chunk& c = ring.chunks[index];
  wait_until(c.seq);           // its last copy is over
  if (c.alloc.size < bytes) {  // grown as needed, up to chunk_bytes_
    release(s_.device, c.alloc);
    const vk::DeviceSize size = std::max<vk::DeviceSize>(std::bit_ceil(bytes), 1u << 20);
    if (ring.rebar) {
      try {
        c.alloc = make_mapped_device_allocation(s_.device, s_.memory, size);
      } catch (const abi::StatusError&) {
        ring.rebar = false;  // none on this device: host memory as without the setting
      }
    }
    if (!c.alloc.buffer) {
      c.alloc = ring.uncached ? make_uncached_host_allocation(s_.device, s_.memory, size)
                              : make_allocation(s_.device, s_.memory, size, true);
    }
  }
  return c;
}

vk::CommandBuffer CommandStream::begin_transfer(Chunk& c) {
  c.cmd.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
  full_barrier(c.cmd);
  return c.cmd;
}

void CommandStream::upload_large(vk::Buffer dst, vk::DeviceSize offset, const std::byte* src,
                                 vk::DeviceSize bytes) {
  stats_.staged_bytes += bytes;
  for (vk::DeviceSize done = 0; done < bytes;) {
    const vk::DeviceSize n = std::min(bytes - done, chunk_bytes_);
    size_t index = 0;
    Chunk& c = next_chunk(up_, n, index);
    copier_.copy(c.alloc.mapped, src + done, n);
    vk::CommandBuffer cmd = begin_transfer(c);
    cmd.copyBuffer(c.alloc.buffer, dst, vk::BufferCopy(0, offset + done, n));
    command_barrier(cmd);
    cmd.end();
    c.seq = submit(std::span(&cmd, 1), 1);
    ++stats_.commands;
    done += n;
  }
}

void CommandStream::download(vk::Buffer src, vk::DeviceSize offset, void* dst,
                             vk::DeviceSize bytes) {
  ++stats_.round_trips;
  end_unit();
  stats_.staged_bytes += bytes;
  auto* to = static_cast<std::byte*>(dst);
  // Pieces copied to the host in order; the GPU copies the next ones meanwhile.
  struct Piece {
    size_t chunk;
    vk::DeviceSize done, n;
  };
  std::deque<Piece> waiting;
  auto finish = [&] {
    const Piece p = waiting.front();
    waiting.pop_front();
    Chunk& c = down_.chunks[p.chunk];
    wait_until(c.seq);
    throw_failure();
    copier_.copy(to + p.done, c.alloc.mapped, p.n);
  };
  for (vk::DeviceSize done = 0; done < bytes;) {
    const vk::DeviceSize n = std::min(bytes - done, chunk_bytes_);
    // The next chunk's piece (if any) goes to the host before the chunk takes another.
    while (!waiting.empty() && waiting.front().chunk == down_.next) finish();
    size_t index = 0;
    Chunk& c = next_chunk(down_, n, index);
    vk::CommandBuffer cmd = begin_transfer(c);
    cmd.copyBuffer(src, c.alloc.buffer, vk::BufferCopy(offset + done, 0, n));
    host_barrier(cmd);
    cmd.end();
    c.seq = submit(std::span(&cmd, 1), 1);
    ++stats_.commands;
    waiting.push_back({index, done, n});
    done += n;
  }
  while (!waiting.empty()) finish();
  throw_failure();
}

}  // namespace oi::vulkan
