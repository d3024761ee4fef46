// libFuzzer entry point for the synthesis plan reader of the GLSL emitter
// (plugins/glsl_emitter/plan_input.cpp), which reads the plan and device JSON the host hands
// it: any bytes must be read or refused with a status error (oi::abi::StatusError) naming
// the problem; nothing else may escape. Inputs starting with 'D' go to the device reader.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "openinfer/plugin_abi.hpp"
#include "plan_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    if (!text.empty() && text[0] == 'D')
      (void)oi::glsl::read_device(text.substr(1));
    else
      (void)oi::glsl::read_plan(text);
  } catch (const oi::abi::StatusError& e) {
    if (std::string_view(e.what()).empty()) __builtin_trap();
  }
  return 0;
}
