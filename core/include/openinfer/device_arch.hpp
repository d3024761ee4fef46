// The device-architecture description the synthesizer plans for (docs/devices.md): the seeds'
// schema (device, limits, features, memory, preferences), extended for CPUs (ISA, SIMD features,
// cache sizes, threads; for microcontrollers the M-profile ISAs, the FPU, flash and RAM budgets
// and the freestanding profile). Loaded from JSON with errors that name the key; unknown keys are
// kept as warnings so newer files still load.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace oi {

inline constexpr int kDeviceArchVersion = 1;

struct DeviceArch {
  struct Device {
    std::string type;  // "gpu" or "cpu"
    std::string api;   // "vulkan", "c", ...
    std::string vendor;
    std::string name;
    std::string architecture;
    std::string driver;
  };
  // GPU limits (required for type "gpu", optional for "cpu").
  struct Limits {
    std::array<uint64_t, 3> max_workgroup_size{0, 0, 0};
    uint64_t max_workgroup_invocations = 0;  // 0: not given
    uint64_t max_shared_memory_bytes = 0;
    uint64_t max_push_constants_bytes = 0;
    uint64_t max_storage_buffer_range_bytes = 0;
    uint32_t subgroup_size = 0;  // 0: not given
    uint32_t max_rank = 0;       // 0: not given (the GPU kernels' own limit, 8)
    uint32_t max_head_dim = 0;   // 0: not given (the GPU attention kernels' own limit, 1024)
    // 0: not given (the GPU kernels' own limit, 2^31 - 1: their 32-bit sizes, indices, strides)
    uint64_t max_elements = 0;
  };
  struct Features {
    bool fp16 = false;
    bool int8 = false;
    bool fp64 = false;
    bool subgroup_ops = false;
    bool cooperative_matrix = false;
  };
  struct Memory {
    uint64_t global_bytes = 0;
    uint64_t shared_bytes_per_sm = 0;  // GPU
    uint64_t l1d_bytes = 0;            // CPU, per core
    uint64_t l2_bytes = 0;
    uint64_t l3_bytes = 0;               // CPU, whole package
    uint64_t bandwidth_bytes_per_s = 0;  // 0: not given
    uint64_t l1i_bytes = 0;              // CPU, per core; 0: not given (or no cache)
    // A microcontroller's budgets (docs/devices.md): code and constants in flash, data in RAM
    // (arena, state, I/O buffers, stack). 0: not given, nothing is checked.
    uint64_t flash_bytes = 0;
    uint64_t ram_bytes = 0;
  };
  // CPU section (required for type "cpu").
  struct Cpu {
    std::string isa;                // "x86-64", "aarch64"
    std::vector<std::string> simd;  // "sse2", "avx2", "fma", "avx512f", ...
    uint32_t vector_bits = 0;       // widest SIMD register the code may use
    uint32_t threads = 1;
    uint32_t cache_line_bytes = 64;
    // "hosted" (libc: the generated code allocates, reads files, prints) or "freestanding" (no
    // allocation, no stdio or files: static memory, weights in flash; docs/synth.md).
    std::string profile = "hosted";
    std::string fpu;                // "none", "sp" (single precision), "dp"; "" not given
    uint32_t alignment_bytes = 16;  // alignment of the generated code's arrays (freestanding)
  };
  struct Preferences {
    std::string default_precision = "fp32";  // "fp32", "fp16", "bf16"
    bool prefer_fusion = true;
    bool prefer_persistent_kv = true;
    uint32_t max_kernel_ops = 12;   // most ops one fused kernel may hold (>= 1)
    uint32_t arena_alignment = 64;  // bytes; a power of two
  };

  int version = kDeviceArchVersion;
  Device device;
  Limits limits;
  Features features;
  Memory memory;
  Cpu cpu;
  bool has_cpu = false;
  Preferences preferences;

  std::string origin;                 // file it came from, or "<target NAME>"
  std::vector<std::string> warnings;  // "ORIGIN: unknown key 'features.foo' (ignored)"

  // Parses and validates. Throws oi::Error(Input) "ORIGIN: key 'limits.max_workgroup_size':
  // expected an array of 3 positive integers" for the first problem found.
  static DeviceArch parse(std::string_view json_text, std::string_view origin = "<json>");
  // Reads a file; a missing or unreadable file is an Input error naming it.
  static DeviceArch load(const std::filesystem::path& path);
  // The defaults of a target: "c" (a generic x86-64 AVX2 CPU) or "glsl" (a generic Vulkan GPU).
  // Throws oi::Error(Usage) for other names.
  static DeviceArch for_target(std::string_view target);

  bool is_cpu() const { return device.type == "cpu"; }
  // A CPU description whose `cpu.profile` is "freestanding" (a microcontroller).
  bool is_freestanding() const { return has_cpu && cpu.profile == "freestanding"; }
  bool has_simd(std::string_view feature) const;

  // The canonical JSON form (every known key; parse(to_json()) gives the same description).
  std::string to_json() const;
};

}  // namespace oi
