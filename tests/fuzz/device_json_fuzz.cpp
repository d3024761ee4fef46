// libFuzzer entry point for device descriptions (docs/devices.md, `synth --device FILE`): any
// bytes must either parse or be rejected with oi::Error; what parses must print its canonical
// JSON, which parses back to the same canonical JSON.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "openinfer/device_arch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  oi::DeviceArch arch;
  try {
    arch = oi::DeviceArch::parse(text, "fuzz.json");
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
    return 0;
  }
  (void)arch.is_cpu();
  (void)arch.is_freestanding();
  (void)arch.has_simd("avx2");
  const std::string json = arch.to_json();
  if (oi::DeviceArch::parse(json, "canonical.json").to_json() != json) __builtin_trap();
  return 0;
}
