#include "command_stream.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backend.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::vulkan {
namespace {

constexpr vk::DeviceSize kMaxArena = 16u << 20;       // transfers go through in pieces of this
constexpr vk::DeviceSize kMaxInlineBytes = 4u << 20;  // vkCmdUpdateBuffer data per batch
constexpr uint32_t kSetsPerPool = 256;

thread_local uint64_t t_device_writes = 0;

vk::DeviceSize align_up(vk::DeviceSize v, vk::DeviceSize a) {
  return (v + a - 1) / a * a;
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

std::string describe(const vk::SystemError& e) {
  return e.what();
}

}  // namespace

uint64_t device_writes_on_this_thread() {
  return t_device_writes;
}

void CommandStream::open(const StreamSetup& setup) {
  s_ = setup;
  if (const char* env = std::getenv("OPENINFER_VULKAN_IDLE_CHECK"); env != nullptr) {
    const long n = std::strtol(env, nullptr, 10);
    if (n >= 1 && n <= 4096) idle_check_ = static_cast<uint32_t>(n);
  }
  if (const char* env = std::getenv("OPENINFER_VULKAN_FAIL_SUBMIT"); env != nullptr) {
    fail_submit_ = std::strtoull(env, nullptr, 10);
  }
  command_pool_ = s_.device.createCommandPool(vk::CommandPoolCreateInfo(
      vk::CommandPoolCreateFlagBits::eResetCommandBuffer, s_.queue_family));
  const auto cmds = s_.device.allocateCommandBuffers(vk::CommandBufferAllocateInfo(
      command_pool_, vk::CommandBufferLevel::ePrimary, static_cast<uint32_t>(kBatches)));
  for (size_t i = 0; i < kBatches; ++i) {
    batches_[i].cmd = cmds[i];
    batches_[i].fence = s_.device.createFence({});
  }
}

void CommandStream::close() noexcept {
  if (!s_.device) return;
  try {
    flush();
  } catch (...) {
  }
  try {
    s_.device.waitIdle();
  } catch (...) {  // device lost: nothing runs any more either way
  }
  for (Batch& b : batches_) {
    for (Allocation& a : b.doomed) release(s_.device, a);
    for (vk::DescriptorPool p : b.pools) s_.device.destroyDescriptorPool(p);
    release(s_.device, b.params.alloc);
    release(s_.device, b.staging.alloc);
    if (b.fence) s_.device.destroyFence(b.fence);
    b = Batch{};
  }
  if (command_pool_) s_.device.destroyCommandPool(command_pool_);  // frees the buffers
  command_pool_ = nullptr;
  if (const char* env = std::getenv("OPENINFER_VULKAN_STATS"); env != nullptr && *env != '\0') {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%llu commands (%llu dispatches) in %llu submits, %llu waits, %llu host round "
                  "trips",
                  static_cast<unsigned long long>(stats_.commands),
                  static_cast<unsigned long long>(stats_.dispatches),
                  static_cast<unsigned long long>(stats_.submits),
                  static_cast<unsigned long long>(stats_.waits),
                  static_cast<unsigned long long>(stats_.round_trips));
    abi::log(host(), OI_LOG_INFO, line);  // "plugin 'vulkan': ..." on stderr by default
  }
  s_ = {};
}

CommandStream::Batch& CommandStream::recording() {
  Batch& b = batches_[current_];
  if (b.state == State::Recording) return b;
  if (b.state == State::Submitted) wait(b);
  // The arenas are empty now and no recorded command refers to them: safe to replace.
  if (b.params.alloc.size < params_wanted_) {
    release(s_.device, b.params.alloc);
    b.params.alloc = make_allocation(s_.device, s_.memory, params_wanted_, true);
  }
  b.cmd.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
  // Everything submitted earlier is visible to this batch.
  vk::MemoryBarrier barrier(vk::AccessFlagBits::eMemoryWrite,
                            vk::AccessFlagBits::eMemoryRead | vk::AccessFlagBits::eMemoryWrite);
  b.cmd.pipelineBarrier(vk::PipelineStageFlagBits::eAllCommands,
                        vk::PipelineStageFlagBits::eAllCommands, {}, barrier, {}, {});
  b.state = State::Recording;
  return b;
}

void CommandStream::flush() {
  Batch& b = batches_[current_];
  if (b.state != State::Recording) return;
  // Results visible to the host once the fence signals (downloads read the staging arena).
  vk::MemoryBarrier to_host(vk::AccessFlagBits::eMemoryWrite, vk::AccessFlagBits::eHostRead);
  b.cmd.pipelineBarrier(vk::PipelineStageFlagBits::eAllCommands, vk::PipelineStageFlagBits::eHost,
                        {}, to_host, {}, {});
  b.state = State::Submitted;
  last_submitted_ = current_;
  current_ = (current_ + 1) % kBatches;
  try {
    b.cmd.end();
    if (++submit_attempts_ == fail_submit_) {
      throw vk::DeviceLostError("injected by OPENINFER_VULKAN_FAIL_SUBMIT");
    }
    s_.queue.submit(vk::SubmitInfo({}, {}, b.cmd), b.fence);
    ++stats_.submits;
  } catch (const vk::SystemError& e) {
    // The batch never runs. Its objects may still be in use by earlier batches: wait for those
    // before retiring it (a lost device waits for nothing).
    if (failure_.empty()) {
      failure_ = "Vulkan: submitting a batch of " + std::to_string(b.commands) +
                 " commands failed (their results are lost): " + describe(e);
    }
    try {
      s_.device.waitIdle();
    } catch (...) {
    }
    retire(b);
  }
}

void CommandStream::wait(Batch& b) {
  try {
    const vk::Result r = s_.device.waitForFences(b.fence, VK_TRUE, UINT64_MAX);
    if (r != vk::Result::eSuccess) {
      throw abi::StatusError(OI_STATUS_INTERNAL, "Vulkan fence wait: " + vk::to_string(r));
    }
    s_.device.resetFences(b.fence);
  } catch (const vk::SystemError& e) {
    throw abi::StatusError(OI_STATUS_INTERNAL, "Vulkan: waiting for a batch of " +
                                                   std::to_string(b.commands) +
                                                   " commands failed: " + describe(e));
  }
  ++stats_.waits;
  retire(b);
}

void CommandStream::wait_all() {
  flush();
  // Oldest first; the queue completes them in this order anyway.
  for (size_t k = 1; k <= kBatches; ++k) {
    Batch& b = batches_[(current_ + k) % kBatches];
    if (b.state == State::Submitted) wait(b);
  }
}

void CommandStream::retire(Batch& b) {
  for (vk::DescriptorPool p : b.pools) s_.device.resetDescriptorPool(p);
  b.pool = 0;
  b.pool_sets = 0;
  b.params.used = 0;
  b.staging.used = 0;
  b.commands = 0;
  b.inline_bytes = 0;
  for (Allocation& a : b.doomed) release(s_.device, a);
  b.doomed.clear();
  b.state = State::Idle;
}

void CommandStream::throw_failure() {
  if (failure_.empty()) return;
  const std::string message = std::move(failure_);
  failure_.clear();
  throw abi::StatusError(OI_STATUS_INTERNAL, message);
}

bool CommandStream::gpu_idle() {
  if (last_submitted_ == kBatches) return true;
  const Batch& last = batches_[last_submitted_];
  if (last.state != State::Submitted) return true;
  try {
    return s_.device.getFenceStatus(last.fence) == vk::Result::eSuccess;
  } catch (const vk::SystemError&) {
    return true;  // the next wait reports it
  }
}

vk::DescriptorSet CommandStream::allocate_set(Batch& b) {
  if (b.pool_sets == kSetsPerPool) {
    ++b.pool;
    b.pool_sets = 0;
  }
  if (b.pool == b.pools.size()) {
    vk::DescriptorPoolSize size(vk::DescriptorType::eStorageBuffer, kSetsPerPool * s_.bindings);
    b.pools.push_back(
        s_.device.createDescriptorPool(vk::DescriptorPoolCreateInfo({}, kSetsPerPool, size)));
  }
  vk::DescriptorSetAllocateInfo info(b.pools[b.pool], s_.set_layout);
  vk::DescriptorSet set;
  const vk::Result r = s_.device.allocateDescriptorSets(&info, &set);
  if (r != vk::Result::eSuccess) {
    throw abi::StatusError(OI_STATUS_INTERNAL,
                           "Vulkan descriptor set allocation: " + vk::to_string(r));
  }
  ++b.pool_sets;
  return set;
}

std::pair<CommandStream::Batch*, vk::DeviceSize> CommandStream::reserve(Arena Batch::*which,
                                                                        vk::DeviceSize bytes,
                                                                        vk::DeviceSize alignment,
                                                                        vk::DeviceSize& wanted) {
  Batch* b = &recording();
  vk::DeviceSize at = align_up((b->*which).used, alignment);
  if (at + bytes > (b->*which).alloc.size) {
    if ((b->*which).used > 0) {  // full: submit, and give later batches a larger arena
      wanted = std::min(std::max(wanted, 2 * (b->*which).alloc.size), kMaxArena);
      flush();
      b = &recording();
    }
    Arena& arena = b->*which;
    if (arena.alloc.size < bytes) {  // empty: nothing recorded refers to it
      release(s_.device, arena.alloc);
      arena.alloc =
          make_allocation(s_.device, s_.memory, std::max(wanted, std::bit_ceil(bytes)), true);
    }
    at = 0;
  }
  (b->*which).used = at + bytes;
  return {b, at};
}

DispatchSlot CommandStream::begin_dispatch(std::span<const uint32_t> params) {
  const vk::DeviceSize bytes = std::max<vk::DeviceSize>(params.size_bytes(), 4);
  auto [b, at] = reserve(&Batch::params, bytes, s_.params_alignment, params_wanted_);
  if (!params.empty()) {
    std::memcpy(static_cast<std::byte*>(b->params.alloc.mapped) + at, params.data(),
                params.size_bytes());
  }
  DispatchSlot slot;
  slot.cmd = b->cmd;
  slot.set = allocate_set(*b);
  slot.params = vk::DescriptorBufferInfo(b->params.alloc.buffer, at, bytes);
  ++stats_.dispatches;
  ++t_device_writes;
  return slot;
}

void CommandStream::end_command() {
  Batch& b = batches_[current_];
  command_barrier(b.cmd);
  ++b.commands;
  ++stats_.commands;
  if (b.commands >= kMaxCommands || b.inline_bytes >= kMaxInlineBytes) {
    flush();
  } else if (b.commands % idle_check_ == 0 && gpu_idle()) {
    flush();  // the GPU would wait for us otherwise
  }
}

void CommandStream::fill_zero(vk::Buffer buffer) {
  ++t_device_writes;
  recording().cmd.fillBuffer(buffer, 0, VK_WHOLE_SIZE, 0);
  end_command();
}

void CommandStream::upload(vk::Buffer dst, vk::DeviceSize offset, const void* src,
                           vk::DeviceSize bytes) {
  ++t_device_writes;
  const auto* from = static_cast<const std::byte*>(src);
  if (bytes <= kInlineUpload && offset % 4 == 0 && bytes % 4 == 0) {
    // The data goes into the command buffer: no staging, and in order with the commands around.
    Batch& b = recording();
    b.cmd.updateBuffer(dst, offset, bytes, from);
    b.inline_bytes += bytes;
    end_command();
    return;
  }
  for (vk::DeviceSize done = 0; done < bytes;) {
    const vk::DeviceSize n = std::min(bytes - done, kMaxArena);
    auto [b, at] = reserve(&Batch::staging, n, 16, staging_wanted_);
    std::memcpy(static_cast<std::byte*>(b->staging.alloc.mapped) + at, from + done, n);
    b->cmd.copyBuffer(b->staging.alloc.buffer, dst, vk::BufferCopy(at, offset + done, n));
    end_command();
    done += n;
  }
}

void CommandStream::copy(vk::Buffer src, vk::DeviceSize src_offset, vk::Buffer dst,
                         vk::DeviceSize dst_offset, vk::DeviceSize bytes) {
  ++t_device_writes;
  recording().cmd.copyBuffer(src, dst, vk::BufferCopy(src_offset, dst_offset, bytes));
  end_command();
}

void CommandStream::download(vk::Buffer src, vk::DeviceSize offset, void* dst,
                             vk::DeviceSize bytes) {
  auto* to = static_cast<std::byte*>(dst);
  ++stats_.round_trips;
  for (vk::DeviceSize done = 0; done < bytes;) {
    const vk::DeviceSize n = std::min(bytes - done, kMaxArena);
    auto [b, at] = reserve(&Batch::staging, n, 16, staging_wanted_);
    b->cmd.copyBuffer(src, b->staging.alloc.buffer, vk::BufferCopy(offset + done, at, n));
    command_barrier(b->cmd);
    ++b->commands;
    ++stats_.commands;
    Batch& copied = *b;
    wait_all();  // the batch is retired, but its arena keeps the bytes until it is reused
    throw_failure();
    std::memcpy(to + done, static_cast<const std::byte*>(copied.staging.alloc.mapped) + at, n);
    done += n;
  }
}

void CommandStream::release_later(Allocation a) {
  Batch& open = batches_[current_];
  if (open.state == State::Recording) {
    open.doomed.push_back(a);
  } else if (last_submitted_ != kBatches && batches_[last_submitted_].state == State::Submitted) {
    batches_[last_submitted_].doomed.push_back(a);
  } else {
    release(s_.device, a);
  }
}

void CommandStream::synchronize() {
  ++stats_.round_trips;
  wait_all();
  throw_failure();
}

}  // namespace oi::vulkan
