// DeviceArch: the shipped descriptions load; bad JSON is an error naming the key; unknown keys
// are warnings.
#define BOOST_TEST_MODULE device_arch
#include <boost/test/unit_test.hpp>
#include <string>

#include "openinfer/device_arch.hpp"
#include "openinfer/error.hpp"

using namespace oi;

namespace {

const std::string kCpu = R"({
  "device": {"type": "cpu", "name": "test cpu"},
  "memory": {"global_bytes": 1024, "l1d_bytes": 32768, "l2_bytes": 1048576},
  "cpu": {"isa": "x86-64", "simd": ["avx2"], "vector_bits": 256, "threads": 4},
  "preferences": {"prefer_fusion": true, "max_kernel_ops": 8}
})";

// The message of the error parse() throws, "" when it does not throw.
std::string error_of(const std::string& text) {
  try {
    DeviceArch::parse(text, "dev.json");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Input));
    BOOST_TEST(e.where() == "dev.json");
    return e.what();
  }
  return "";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  BOOST_REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

BOOST_AUTO_TEST_CASE(shipped_descriptions_load_without_warnings) {
  for (const char* name :
       {"ada_mock", "nvidia_h100", "nvidia_h200", "lavapipe", "generic_vulkan", "x86_64_avx2",
        "x86_64_avx512", "cortex_m4f_stm32l4r5", "cortex_m7_stm32h743", "cortex_m55_corstone300"}) {
    BOOST_TEST_CONTEXT(name) {
      auto a = DeviceArch::load(std::string(OPENINFER_SOURCE_DIR) + "/devices/" + name + ".json");
      BOOST_TEST(a.warnings.empty());
      BOOST_TEST(!a.device.name.empty());
      BOOST_TEST(a.preferences.max_kernel_ops >= 1u);
      // The canonical form reads back to the same description.
      auto b = DeviceArch::parse(a.to_json(), "round");
      BOOST_TEST(b.to_json() == a.to_json());
    }
  }
  // generic_vulkan.json is the glsl target's built-in device, written out (no fp64, no fp16).
  auto generic =
      DeviceArch::load(std::string(OPENINFER_SOURCE_DIR) + "/devices/generic_vulkan.json");
  BOOST_TEST(generic.to_json() == DeviceArch::for_target("glsl").to_json());
  BOOST_TEST(!generic.features.fp64);
  auto ada = DeviceArch::load(std::string(OPENINFER_SOURCE_DIR) + "/devices/ada_mock.json");
  BOOST_TEST(ada.device.type == "gpu");
  BOOST_TEST(ada.limits.max_workgroup_size[2] == 64u);
  BOOST_TEST(ada.preferences.max_kernel_ops == 12u);
  BOOST_TEST(ada.preferences.default_precision == "fp16");
  auto avx512 = DeviceArch::load(std::string(OPENINFER_SOURCE_DIR) + "/devices/x86_64_avx512.json");
  BOOST_TEST(avx512.is_cpu());
  BOOST_TEST(avx512.has_simd("avx512f"));
  BOOST_TEST(avx512.cpu.vector_bits == 512u);
}

BOOST_AUTO_TEST_CASE(cpu_description_parses) {
  auto a = DeviceArch::parse(kCpu, "dev.json");
  BOOST_TEST(a.is_cpu());
  BOOST_TEST(a.cpu.threads == 4u);
  BOOST_TEST(a.cpu.cache_line_bytes == 64u);  // default
  BOOST_TEST(a.preferences.arena_alignment == 64u);
  BOOST_TEST(a.warnings.empty());
}

// Microcontrollers: the freestanding profile, the M-profile ISAs, the FPU, flash and RAM
// budgets; cache sizes are optional for them (a Cortex-M4 has none), required for hosted CPUs.
BOOST_AUTO_TEST_CASE(microcontroller_descriptions) {
  const std::string dir = std::string(OPENINFER_SOURCE_DIR) + "/devices/";
  auto m4 = DeviceArch::load(dir + "cortex_m4f_stm32l4r5.json");
  BOOST_TEST(m4.is_freestanding());
  BOOST_TEST(m4.cpu.isa == "armv7e-m");
  BOOST_TEST(m4.cpu.fpu == "sp");
  BOOST_TEST(m4.has_simd("dsp"));
  BOOST_TEST(m4.memory.flash_bytes == 2097152u);
  BOOST_TEST(m4.memory.ram_bytes == 655360u);
  BOOST_TEST(m4.memory.l1d_bytes == 0u);
  BOOST_TEST(m4.to_json().find("l1d_bytes") == std::string::npos);
  auto m7 = DeviceArch::load(dir + "cortex_m7_stm32h743.json");
  BOOST_TEST(m7.memory.l1d_bytes == 16384u);
  BOOST_TEST(m7.cpu.fpu == "dp");
  auto m55 = DeviceArch::load(dir + "cortex_m55_corstone300.json");
  BOOST_TEST(m55.cpu.isa == "armv8.1-m.main");
  BOOST_TEST(m55.has_simd("mve.fp"));
  BOOST_TEST(m55.cpu.vector_bits == 128u);
  BOOST_TEST(!DeviceArch::parse(kCpu, "dev.json").is_freestanding());
  BOOST_TEST(DeviceArch::parse(kCpu, "dev.json").cpu.profile == "hosted");

  const std::string mcu = R"({
  "device": {"type": "cpu", "name": "mcu"},
  "memory": {"global_bytes": 1024, "flash_bytes": 4096, "ram_bytes": 1024},
  "cpu": {"isa": "armv7e-m", "simd": [], "vector_bits": 0, "threads": 1,
          "profile": "freestanding", "fpu": "sp", "alignment_bytes": 8},
  "preferences": {"prefer_fusion": true, "max_kernel_ops": 8}
})";
  BOOST_TEST(error_of(mcu) == "");
  const std::string cached =
      replace(mcu, R"("ram_bytes": 1024})", R"("ram_bytes": 1024, "l1d_bytes": 1, "l2_bytes": 1})");
  BOOST_TEST(error_of(replace(cached, R"("profile": "freestanding")", R"("profile": "bare")")) ==
             "key 'cpu.profile': expected one of \"hosted\", \"freestanding\", got \"bare\"");
  BOOST_TEST(error_of(replace(mcu, R"("fpu": "sp")", R"("fpu": "vfp")")) ==
             "key 'cpu.fpu': expected one of \"none\", \"sp\", \"dp\", got \"vfp\"");
  BOOST_TEST(error_of(replace(mcu, R"("alignment_bytes": 8)", R"("alignment_bytes": 12)")) ==
             "key 'cpu.alignment_bytes': expected a power of two");
  BOOST_TEST(error_of(replace(mcu, R"("ram_bytes": 1024)", R"("ram_bytes": 0)")) ==
             "key 'memory.ram_bytes': expected a positive integer, got 0");
  // Hosted, the same description needs its caches.
  BOOST_TEST(error_of(replace(mcu, R"("profile": "freestanding")", R"("profile": "hosted")")) ==
             "key 'memory.l1d_bytes': is required");
  auto a = DeviceArch::parse(mcu, "dev.json");
  BOOST_TEST(DeviceArch::parse(a.to_json(), "round").to_json() == a.to_json());
}

BOOST_AUTO_TEST_CASE(errors_name_the_key) {
  BOOST_TEST(error_of("{").find("not valid JSON") != std::string::npos);
  BOOST_TEST(error_of("[]") == "expected a JSON object at the top level");
  BOOST_TEST(error_of(replace(kCpu, R"("device": {"type": "cpu", "name": "test cpu"},)", "")) ==
             "key 'device': is required");
  BOOST_TEST(error_of(replace(kCpu, R"("type": "cpu")", R"("type": "tpu")")) ==
             "key 'device.type': expected one of \"gpu\", \"cpu\", got \"tpu\"");
  BOOST_TEST(error_of(replace(kCpu, R"("max_kernel_ops": 8)", R"("max_kernel_ops": 0)")) ==
             "key 'preferences.max_kernel_ops': expected a positive integer, got 0");
  BOOST_TEST(error_of(replace(kCpu, R"("max_kernel_ops": 8)", R"("max_kernel_ops": "8")")) ==
             "key 'preferences.max_kernel_ops': expected a positive integer");
  BOOST_TEST(error_of(replace(kCpu, R"("prefer_fusion": true)", R"("prefer_fusion": 1)")) ==
             "key 'preferences.prefer_fusion': expected true or false");
  BOOST_TEST(error_of(replace(kCpu, R"("threads": 4)", R"("threads": -2)")) ==
             "key 'cpu.threads': expected a positive integer, got -2");
  BOOST_TEST(error_of(replace(kCpu, R"("vector_bits": 256)", R"("vector_bits": 300)")) ==
             "key 'cpu.vector_bits': expected 0 or a power of two of at least 8");
  BOOST_TEST(error_of(replace(kCpu, R"(["avx2"])", R"(["avx2", 3])")) ==
             "key 'cpu.simd[1]': expected a string");
  BOOST_TEST(error_of(replace(kCpu, R"("l1d_bytes": 32768, )", "")) ==
             "key 'memory.l1d_bytes': is required");
  BOOST_TEST(error_of(replace(kCpu, R"("device": {)", R"("version": 9, "device": {)")) ==
             "key 'version': unsupported version 9 (this reader knows 1)");
  // A GPU needs limits and features; the workgroup size is three positive integers.
  std::string gpu = R"({"device": {"type": "gpu", "name": "g"},
    "limits": {"max_workgroup_size": [64, 0, 1], "max_shared_memory_bytes": 1,
               "max_push_constants_bytes": 1, "max_storage_buffer_range_bytes": 1},
    "features": {"fp16": true, "int8": true, "subgroup_ops": true, "cooperative_matrix": false},
    "memory": {"global_bytes": 1, "shared_bytes_per_sm": 1, "l2_bytes": 1},
    "preferences": {"prefer_fusion": true, "max_kernel_ops": 4}})";
  BOOST_TEST(error_of(gpu) ==
             "key 'limits.max_workgroup_size[1]': expected an array of 3 positive integers");
  gpu = replace(gpu, "[64, 0, 1]", "[64, 1, 1]");
  BOOST_TEST(error_of(gpu) == "");
  BOOST_TEST(error_of(replace(gpu, R"("fp16": true, )", "")) == "key 'features.fp16': is required");
}

BOOST_AUTO_TEST_CASE(unknown_keys_are_warnings) {
  auto a = DeviceArch::parse(replace(replace(kCpu, R"("threads": 4)", R"("threads": 4, "smt": 2)"),
                                     R"("device": {)", R"("comment": "x", "device": {)"),
                             "dev.json");
  BOOST_TEST(a.warnings.size() == 2u);
  BOOST_TEST(a.warnings[0] == "dev.json: unknown key 'cpu.smt' (ignored)");
  BOOST_TEST(a.warnings[1] == "dev.json: unknown key 'comment' (ignored)");
}

BOOST_AUTO_TEST_CASE(targets_and_missing_files) {
  BOOST_TEST(DeviceArch::for_target("c").is_cpu());
  BOOST_TEST(DeviceArch::for_target("glsl").device.type == "gpu");
  BOOST_CHECK_THROW(DeviceArch::for_target("fortran"), Error);
  try {
    DeviceArch::load("/nonexistent/dev.json");
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST(e.where() == "/nonexistent/dev.json");
    BOOST_TEST(std::string(e.what()) == "cannot open device description");
  }
}
