// The one way an emitter refuses a graph: a limit of the target device that the device
// description (device JSON) names. Everything a simulator runs must synthesize, so the only
// acceptable refusal is "this device lacks X", and the message names the description's key
// (`features.fp64`, `limits.max_shared_memory_bytes`, ...) so the user knows what to change.
// Both emitters throw it from here; the plugin's ABI entry maps it to OI_STATUS_UNIMPLEMENTED.
// tests/repo/check_plugin_structure.py checks that no other refusal exists in the emitters.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace oi::emit {

class DeviceLimit : public std::runtime_error {
 public:
  DeviceLimit(std::string key, const std::string& message)
      : std::runtime_error(message), key_(std::move(key)) {}
  // The device description's key, for example "features.fp64".
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// `target` is the emitter ("glsl emitter"), `where` the graph construct ("op 'exp' (line 4)"),
// `needs` what it needs ("f64 arithmetic needs shaderFloat64"), `device` the description's name
// and `key` its setting with the value that refuses ("features.fp64 false").
[[noreturn]] inline void refuse_device_limit(std::string_view target, std::string_view where,
                                             std::string_view needs, std::string_view device,
                                             std::string_view key) {
  std::string k(key);
  const std::string message = std::string(target) + ": " + std::string(where) + ": " +
                              std::string(needs) + ", which the device '" + std::string(device) +
                              "' does not offer (" + k + ")";
  throw DeviceLimit(k.substr(0, k.find(' ')), message);
}

}  // namespace oi::emit
