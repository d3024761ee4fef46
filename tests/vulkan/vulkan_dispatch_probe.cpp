// vulkan_dispatch_probe: where the time of a chain of tiny dependent dispatches goes (issue 22,
// docs/vulkan.md "Where the per-node time goes"). In one process, on the first Vulkan device
// (OPENINFER_VULKAN_DEVICE picks another by name), it records N dispatches in ONE command buffer
// for each variant below, runs it R times and reports the GPU time between two timestamps
// (vkCmdWriteTimestamp before the first and after the last dispatch) per dispatch, median and
// range over the runs (after one warm-up run), plus the host wall time of submit + wait per
// dispatch.
//
// Variants: the shader (empty, a 256-element f32 add reading its parameters from a storage
// buffer as the backend's shaders do, the same add with push constants, the backend's own
// eltwise.comp), the barrier after each dispatch (none, the backend's command_barrier, a
// compute-to-compute memory barrier, a buffer memory barrier, an execution-only barrier, the
// backend's full_barrier), where the parameters live (device memory, or host memory as the
// backend's params arena had them until 2026-11-29), and the descriptor set (a fresh set of 7
// storage buffers written and bound per dispatch as the backend does, or one set bound once). The
// add variants run x = x + 1 N times, and x is checked to be N afterwards (every element), so a
// barrier that does not order the chain shows as a wrong result (printed, not fatal: a race may
// happen to give the right answer).
//
//   vulkan_dispatch_probe [--n N] [--runs R]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define VULKAN_HPP_DISPATCH_LOADER_DYNAMIC 1
#include <vulkan/vulkan.hpp>

#include "shaders.hpp"

VULKAN_HPP_DEFAULT_DISPATCH_LOADER_DYNAMIC_STORAGE

namespace {

constexpr uint32_t kBindings = 7;  // the backend's kDataBindings + 1 (parameters first)
constexpr uint32_t kElements = 256;
constexpr uint32_t kParamSlots = 16384;  // 256 bytes each: 4 MiB
constexpr vk::DeviceSize kSlotBytes = 256;

enum class Shader { Empty, AddSsbo, AddPush, Eltwise };
enum class Barrier { None, Backend, Memory, BufferMem, Execution, Full };
enum class Sets { PerDispatch, Once };

struct Variant {
  const char* name;
  Shader shader;
  Barrier barrier;
  Sets sets;
  bool bind_pipeline_each = true;
  bool host_params = false;  // parameters in host memory, as the backend's params arena
  // Each dispatch's parameters at their own 256-byte slot (as the backend's arena has them),
  // instead of all at one slot (which stays in the GPU's L2 cache across barriers).
  bool distinct_params = false;
};

struct Buffer {
  vk::Buffer buffer;
  vk::DeviceMemory memory;
  void* mapped = nullptr;
};

struct Probe {
  vk::DynamicLoader loader;
  vk::Instance instance;
  vk::PhysicalDevice phys;
  vk::Device device;
  vk::Queue queue;
  uint32_t family = 0;
  double ns_per_tick = 1.0;
  vk::PhysicalDeviceMemoryProperties memory;
  vk::DescriptorSetLayout set_layout;
  vk::PipelineLayout layout;
  vk::CommandPool cmd_pool;
  vk::QueryPool queries;
  vk::Fence fence;
  Buffer x, one, params, host_params, readback;
  vk::Pipeline pipelines[4];

  uint32_t memory_type(uint32_t bits, vk::MemoryPropertyFlags want,
                       vk::MemoryPropertyFlags prefer = {}) const {
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
      const auto flags = memory.memoryTypes[i].propertyFlags;
      if ((bits & (1u << i)) && (flags & (want | prefer)) == (want | prefer)) return i;
    }
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
      if ((bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) return i;
    }
    throw std::runtime_error("no memory type");
  }

  Buffer make_buffer(vk::DeviceSize bytes, bool host) {
    using U = vk::BufferUsageFlagBits;
    Buffer b;
    b.buffer = device.createBuffer(
        vk::BufferCreateInfo({}, bytes, U::eStorageBuffer | U::eTransferDst | U::eTransferSrc));
    const vk::MemoryRequirements req = device.getBufferMemoryRequirements(b.buffer);
    const auto props =
        host ? vk::MemoryPropertyFlagBits::eHostVisible | vk::MemoryPropertyFlagBits::eHostCoherent
             : vk::MemoryPropertyFlags(vk::MemoryPropertyFlagBits::eDeviceLocal);
    // Host memory as vk_memory.cpp's make_allocation(..., true) takes it: cached preferred.
    b.memory = device.allocateMemory(vk::MemoryAllocateInfo(
        req.size,
        memory_type(req.memoryTypeBits, props,
                    host ? vk::MemoryPropertyFlags(vk::MemoryPropertyFlagBits::eHostCached)
                         : vk::MemoryPropertyFlags{})));
    device.bindBufferMemory(b.buffer, b.memory, 0);
    if (host) b.mapped = device.mapMemory(b.memory, 0, bytes);
    return b;
  }

  vk::Pipeline make_pipeline(const char* name) {
    const oi::vulkan::SpirvCode code = oi::vulkan::spirv_code(name);
    if (code.words == nullptr) throw std::runtime_error(std::string("no SPIR-V ") + name);
    vk::ShaderModule module =
        device.createShaderModule(vk::ShaderModuleCreateInfo({}, code.count * 4, code.words));
    // eltwise.comp: OP add (0), DTYPE f32 (0), UNROLL 1 (the backend's default).
    const uint32_t spec[3] = {0, 0, 1};
    const vk::SpecializationMapEntry entries[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    vk::SpecializationInfo si(3, entries, sizeof spec, spec);
    vk::ComputePipelineCreateInfo info(
        {},
        vk::PipelineShaderStageCreateInfo({}, vk::ShaderStageFlagBits::eCompute, module, "main",
                                          &si),
        layout);
    auto r = device.createComputePipeline(nullptr, info);
    device.destroyShaderModule(module);
    if (r.result != vk::Result::eSuccess) throw std::runtime_error("pipeline");
    return r.value;
  }

  void open() {
    VULKAN_HPP_DEFAULT_DISPATCHER.init(
        loader.getProcAddress<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr"));
    vk::ApplicationInfo app("vulkan_dispatch_probe", 1, nullptr, 0, VK_API_VERSION_1_1);
    instance = vk::createInstance(vk::InstanceCreateInfo({}, &app));
    VULKAN_HPP_DEFAULT_DISPATCHER.init(instance);
    const char* want = std::getenv("OPENINFER_VULKAN_DEVICE");
    for (vk::PhysicalDevice p : instance.enumeratePhysicalDevices()) {
      const std::string name = p.getProperties().deviceName.data();
      if (want ? name.find(want) != std::string::npos : !phys) phys = p;
    }
    if (!phys) throw std::runtime_error("no Vulkan device");
    const vk::PhysicalDeviceProperties props = phys.getProperties();
    const auto families = phys.getQueueFamilyProperties();
    family = UINT32_MAX;
    for (uint32_t i = 0; i < families.size() && family == UINT32_MAX; ++i) {
      if ((families[i].queueFlags & vk::QueueFlagBits::eCompute) &&
          families[i].timestampValidBits > 0) {
        family = i;
      }
    }
    if (family == UINT32_MAX) throw std::runtime_error("no compute queue with timestamps");
    ns_per_tick = props.limits.timestampPeriod;
    std::printf("device: %s (driver %u.%u.%u, API %u.%u), timestamp period %.3f ns\n",
                props.deviceName.data(), props.driverVersion >> 22,
                (props.driverVersion >> 14) & 0xff, (props.driverVersion >> 6) & 0xff,
                VK_VERSION_MAJOR(props.apiVersion), VK_VERSION_MINOR(props.apiVersion),
                ns_per_tick);
    const float priority = 1.0f;
    vk::DeviceQueueCreateInfo qi({}, family, 1, &priority);
    device = phys.createDevice(vk::DeviceCreateInfo({}, qi));
    VULKAN_HPP_DEFAULT_DISPATCHER.init(device);
    queue = device.getQueue(family, 0);
    memory = phys.getMemoryProperties();

    std::vector<vk::DescriptorSetLayoutBinding> bindings;
    for (uint32_t b = 0; b < kBindings; ++b) {
      bindings.emplace_back(b, vk::DescriptorType::eStorageBuffer, 1,
                            vk::ShaderStageFlagBits::eCompute);
    }
    set_layout = device.createDescriptorSetLayout(vk::DescriptorSetLayoutCreateInfo({}, bindings));
    vk::PushConstantRange push(vk::ShaderStageFlagBits::eCompute, 0, 32);
    layout = device.createPipelineLayout(vk::PipelineLayoutCreateInfo({}, set_layout, push));
    cmd_pool = device.createCommandPool(vk::CommandPoolCreateInfo({}, family));
    queries = device.createQueryPool(vk::QueryPoolCreateInfo({}, vk::QueryType::eTimestamp, 2));
    fence = device.createFence({});
    x = make_buffer(kElements * 4, false);
    one = make_buffer(kElements * 4, false);
    params = make_buffer(kParamSlots * kSlotBytes, false);
    host_params = make_buffer(kParamSlots * kSlotBytes, true);
    const std::vector<uint32_t> words = param_words();
    for (uint32_t i = 0; i < kParamSlots; ++i) {
      std::memcpy(static_cast<std::byte*>(host_params.mapped) + i * kSlotBytes, words.data(),
                  words.size() * 4);
    }
    readback = make_buffer(kElements * 4, true);
    pipelines[0] = make_pipeline("empty");
    pipelines[1] = make_pipeline("add_ssbo");
    pipelines[2] = make_pipeline("add_push");
    pipelines[3] = make_pipeline("eltwise_32");
  }

  // p: count, rank, a/b/y word offsets, flags, then from 16 on (dim, a stride, b stride).
  static std::vector<uint32_t> param_words() {
    std::vector<uint32_t> p(32, 0);
    p[0] = kElements;
    p[1] = 1;
    p[16] = kElements;
    p[17] = 1;
    p[18] = 1;
    return p;
  }

  void barrier(vk::CommandBuffer cmd, Barrier kind) const {
    using A = vk::AccessFlagBits;
    using S = vk::PipelineStageFlagBits;
    switch (kind) {
      case Barrier::None:
        return;
      case Barrier::Backend: {  // command_stream.cpp's command_barrier
        vk::MemoryBarrier m(A::eShaderWrite | A::eTransferWrite, A::eShaderRead | A::eShaderWrite |
                                                                     A::eTransferRead |
                                                                     A::eTransferWrite);
        cmd.pipelineBarrier(S::eComputeShader | S::eTransfer, S::eComputeShader | S::eTransfer, {},
                            m, {}, {});
        return;
      }
      case Barrier::Memory: {
        vk::MemoryBarrier m(A::eShaderWrite, A::eShaderRead | A::eShaderWrite);
        cmd.pipelineBarrier(S::eComputeShader, S::eComputeShader, {}, m, {}, {});
        return;
      }
      case Barrier::BufferMem: {
        vk::BufferMemoryBarrier b(A::eShaderWrite, A::eShaderRead | A::eShaderWrite,
                                  VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, x.buffer, 0,
                                  VK_WHOLE_SIZE);
        cmd.pipelineBarrier(S::eComputeShader, S::eComputeShader, {}, {}, b, {});
        return;
      }
      case Barrier::Execution:
        cmd.pipelineBarrier(S::eComputeShader, S::eComputeShader, {}, {}, {}, {});
        return;
      case Barrier::Full: {  // command_stream.cpp's full_barrier
        vk::MemoryBarrier m(A::eMemoryWrite, A::eMemoryRead | A::eMemoryWrite);
        cmd.pipelineBarrier(S::eAllCommands, S::eAllCommands, {}, m, {}, {});
        return;
      }
    }
  }

  void one_shot(const std::function<void(vk::CommandBuffer)>& record) {
    vk::CommandBuffer cmd =
        device.allocateCommandBuffers({cmd_pool, vk::CommandBufferLevel::ePrimary, 1})[0];
    cmd.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
    record(cmd);
    cmd.end();
    queue.submit(vk::SubmitInfo({}, {}, cmd), fence);
    (void)device.waitForFences(fence, true, UINT64_MAX);
    device.resetFences(fence);
    device.freeCommandBuffers(cmd_pool, cmd);
  }

  struct Result {
    std::vector<double> gpu_us, host_us;  // per dispatch, one per run
    float first = 0, last = 0;
    bool uniform = true;
  };

  Result run(const Variant& v, uint32_t n, int runs) {
    vk::DescriptorPoolSize size(vk::DescriptorType::eStorageBuffer, (n + 1) * kBindings);
    vk::DescriptorPool pool =
        device.createDescriptorPool(vk::DescriptorPoolCreateInfo({}, n + 1, size));
    const std::vector<uint32_t> words = param_words();
    uint32_t slot = 0;
    auto new_set = [&]() {
      const vk::DeviceSize at = v.distinct_params ? (slot++ % kParamSlots) * kSlotBytes : 0;
      vk::DescriptorSet set = device.allocateDescriptorSets({pool, set_layout})[0];
      std::array<vk::DescriptorBufferInfo, kBindings> infos;
      infos[0] = vk::DescriptorBufferInfo((v.host_params ? host_params : params).buffer, at, 128);
      infos[1] = vk::DescriptorBufferInfo(x.buffer, 0, VK_WHOLE_SIZE);  // a
      infos[2] = vk::DescriptorBufferInfo(one.buffer, 0, VK_WHOLE_SIZE);
      infos[3] = vk::DescriptorBufferInfo(x.buffer, 0, VK_WHOLE_SIZE);  // y
      for (uint32_t i = 4; i < kBindings; ++i) infos[i] = infos[3];     // unused, as the backend's
      std::array<vk::WriteDescriptorSet, kBindings> writes;
      for (uint32_t i = 0; i < kBindings; ++i) {
        writes[i] = vk::WriteDescriptorSet(set, i, 0, 1, vk::DescriptorType::eStorageBuffer,
                                           nullptr, &infos[i]);
      }
      device.updateDescriptorSets(writes, {});
      return set;
    };
    vk::Pipeline pipeline = pipelines[static_cast<int>(v.shader)];
    vk::CommandBuffer cmd =
        device.allocateCommandBuffers({cmd_pool, vk::CommandBufferLevel::ePrimary, 1})[0];
    cmd.begin(vk::CommandBufferBeginInfo{});
    cmd.resetQueryPool(queries, 0, 2);
    barrier(cmd, Barrier::Full);
    cmd.writeTimestamp(vk::PipelineStageFlagBits::eTopOfPipe, queries, 0);
    vk::DescriptorSet once = new_set();
    if (v.sets == Sets::Once || !v.bind_pipeline_each) {
      cmd.bindPipeline(vk::PipelineBindPoint::eCompute, pipeline);
    }
    if (v.sets == Sets::Once) {
      cmd.bindDescriptorSets(vk::PipelineBindPoint::eCompute, layout, 0, once, {});
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (v.bind_pipeline_each) cmd.bindPipeline(vk::PipelineBindPoint::eCompute, pipeline);
      if (v.sets == Sets::PerDispatch) {
        cmd.bindDescriptorSets(vk::PipelineBindPoint::eCompute, layout, 0, new_set(), {});
      }
      if (v.shader == Shader::AddPush) {
        cmd.pushConstants(layout, vk::ShaderStageFlagBits::eCompute, 0, 32, words.data());
      }
      cmd.dispatch(1, 1, 1);
      barrier(cmd, v.barrier);
    }
    cmd.writeTimestamp(vk::PipelineStageFlagBits::eBottomOfPipe, queries, 1);
    cmd.end();

    Result r;
    for (int k = -1; k < runs; ++k) {  // run -1: a warm-up, not counted
      one_shot([&](vk::CommandBuffer c) {
        c.fillBuffer(x.buffer, 0, VK_WHOLE_SIZE, 0);
        c.fillBuffer(one.buffer, 0, VK_WHOLE_SIZE, 0x3f800000u);  // 1.0f
        c.copyBuffer(host_params.buffer, params.buffer,
                     vk::BufferCopy(0, 0, kParamSlots * kSlotBytes));
      });
      const auto t0 = std::chrono::steady_clock::now();
      queue.submit(vk::SubmitInfo({}, {}, cmd), fence);
      (void)device.waitForFences(fence, true, UINT64_MAX);
      const auto t1 = std::chrono::steady_clock::now();
      device.resetFences(fence);
      uint64_t ts[2] = {0, 0};
      (void)device.getQueryPoolResults(
          queries, 0, 2, sizeof ts, ts, 8,
          vk::QueryResultFlagBits::e64 | vk::QueryResultFlagBits::eWait);
      if (k < 0) continue;
      r.gpu_us.push_back(double(ts[1] - ts[0]) * ns_per_tick / 1e3 / n);
      r.host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    }
    one_shot([&](vk::CommandBuffer c) {
      vk::MemoryBarrier m(vk::AccessFlagBits::eMemoryWrite, vk::AccessFlagBits::eTransferRead);
      c.pipelineBarrier(vk::PipelineStageFlagBits::eAllCommands,
                        vk::PipelineStageFlagBits::eTransfer, {}, m, {}, {});
      c.copyBuffer(x.buffer, readback.buffer, vk::BufferCopy(0, 0, kElements * 4));
      vk::MemoryBarrier h(vk::AccessFlagBits::eTransferWrite, vk::AccessFlagBits::eHostRead);
      c.pipelineBarrier(vk::PipelineStageFlagBits::eTransfer, vk::PipelineStageFlagBits::eHost, {},
                        h, {}, {});
    });
    const float* values = static_cast<const float*>(readback.mapped);
    r.first = values[0];
    r.last = values[kElements - 1];
    for (uint32_t i = 0; i < kElements; ++i) r.uniform = r.uniform && values[i] == values[0];
    device.freeCommandBuffers(cmd_pool, cmd);
    device.destroyDescriptorPool(pool);
    return r;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t n = 1000;
  int runs = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
      n = static_cast<uint32_t>(std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: vulkan_dispatch_probe [--n N] [--runs R]\n");
      return 2;
    }
  }
  Probe probe;
  try {
    probe.open();
  } catch (const std::exception& e) {
    std::printf("vulkan_dispatch_probe: skipped (%s)\n", e.what());
    return 77;
  }
  using B = Barrier;
  using S = Shader;
  const Variant variants[] = {
      {"1 empty, no barrier, set per dispatch", S::Empty, B::None, Sets::PerDispatch},
      {"1b empty, no barrier, bound once", S::Empty, B::None, Sets::Once, false},
      {"2 empty + backend barrier, set per dispatch", S::Empty, B::Backend, Sets::PerDispatch},
      {"2b empty + backend barrier, bound once", S::Empty, B::Backend, Sets::Once, false},
      {"2c empty + execution-only barrier, bound once", S::Empty, B::Execution, Sets::Once, false},
      {"3 add ssbo params + backend barrier, set per dispatch (the backend)", S::AddSsbo,
       B::Backend, Sets::PerDispatch},
      {"3n add ssbo params, NO barrier (unordered), set per dispatch", S::AddSsbo, B::None,
       Sets::PerDispatch},
      {"4 add push params + backend barrier, set per dispatch", S::AddPush, B::Backend,
       Sets::PerDispatch},
      {"5a add ssbo params + backend barrier, set bound once", S::AddSsbo, B::Backend, Sets::Once},
      {"5b add push params + backend barrier, set bound once", S::AddPush, B::Backend, Sets::Once},
      {"5c add push params + backend barrier, bound once, pipeline once", S::AddPush, B::Backend,
       Sets::Once, false},
      {"6a add ssbo, set once, global memory barrier compute->compute", S::AddSsbo, B::Memory,
       Sets::Once},
      {"6b add ssbo, set once, buffer memory barrier on x", S::AddSsbo, B::BufferMem, Sets::Once},
      {"6c add ssbo, set once, execution-only barrier", S::AddSsbo, B::Execution, Sets::Once},
      {"6d add ssbo, set once, full barrier (all commands)", S::AddSsbo, B::Full, Sets::Once},
      {"7 eltwise.comp (eltwise_32, add f32) + backend barrier, set per dispatch", S::Eltwise,
       B::Backend, Sets::PerDispatch},
      {"7b eltwise.comp + backend barrier, set bound once", S::Eltwise, B::Backend, Sets::Once},
      {"3h add ssbo params IN HOST MEMORY + backend barrier, set per dispatch", S::AddSsbo,
       B::Backend, Sets::PerDispatch, true, true},
      {"7h eltwise.comp, params IN HOST MEMORY + backend barrier, set per dispatch", S::Eltwise,
       B::Backend, Sets::PerDispatch, true, true},
      {"7hn eltwise.comp, params IN HOST MEMORY, NO barrier (unordered)", S::Eltwise, B::None,
       Sets::PerDispatch, true, true},
      {"3d add ssbo, params at a slot per dispatch in device memory + backend barrier", S::AddSsbo,
       B::Backend, Sets::PerDispatch, true, false, true},
      {"3dh add ssbo, params at a slot per dispatch IN HOST MEMORY + backend barrier", S::AddSsbo,
       B::Backend, Sets::PerDispatch, true, true, true},
      {"7d eltwise.comp, params at a slot per dispatch in device memory + backend barrier",
       S::Eltwise, B::Backend, Sets::PerDispatch, true, false, true},
      {"7dh eltwise.comp, params at a slot per dispatch IN HOST MEMORY + backend barrier",
       S::Eltwise, B::Backend, Sets::PerDispatch, true, true, true},
  };
  std::printf(
      "N = %u dependent dispatches of 1 workgroup (256 invocations) in one command "
      "buffer, %d runs each;\nus per dispatch: GPU timestamps median [min-max], host "
      "submit+wait median; x after the chain (want %u)\n",
      n, runs, n);
  int wrong = 0;
  for (const Variant& v : variants) {
    Probe::Result r = probe.run(v, n, runs);
    const auto [lo, hi] = std::minmax_element(r.gpu_us.begin(), r.gpu_us.end());
    const bool is_add = v.shader != Shader::Empty;
    const bool right = r.uniform && r.first == float(n);
    if (is_add && !right && v.barrier != Barrier::None) ++wrong;
    std::printf("%-72s gpu %6.3f [%6.3f-%6.3f]  host %6.3f", v.name, median(r.gpu_us), *lo, *hi,
                median(r.host_us));
    if (is_add) std::printf("  x=%g%s", r.first, right ? " ok" : r.uniform ? " WRONG" : " MIXED");
    std::printf("\n");
    std::fflush(stdout);
  }
  std::printf("wrong results with a barrier: %d\n", wrong);
  return wrong == 0 ? 0 : 1;
}
