// The refusal paths of refusal.hpp.
#include "refusal.hpp"

#include "openinfer/device_limit.hpp"
#include "openinfer/plugin_abi.hpp"
#include "plan_input.hpp"

namespace oi::glsl {

namespace {

std::string gap_text(std::string_view gap, const std::string& what) {
  return what + " (open gap " + std::string(gap) + ")";
}

}  // namespace

void device_limit(const DeviceIn& device, const std::string& where, const std::string& needs,
                  std::string_view key) {
  // The ABI status the plugin returns (UNIMPLEMENTED), so that write_kernel() can still try the
  // Vulkan backend's kernels where the own writers meet a limit those kernels do not have.
  try {
    oi::emit::refuse_device_limit("glsl emitter", where, needs, device.name, key);
  } catch (const oi::emit::DeviceLimit& e) {
    throw oi::abi::StatusError(OI_STATUS_UNIMPLEMENTED, e.what());
  }
}

void invalid_plan(const std::string& what) {
  throw oi::abi::StatusError(OI_STATUS_INVALID_ARGUMENT, "glsl emitter: " + what);
}

void glsl_gap(std::string_view gap, const std::string& what) {
  throw oi::abi::StatusError(OI_STATUS_UNIMPLEMENTED, "glsl emitter: " + gap_text(gap, what));
}

void decline(const std::string& what) {
  throw oi::abi::StatusError(OI_STATUS_UNIMPLEMENTED, "glsl emitter: " + what);
}

void rethrow_with_context(const std::string& context) {
  try {
    throw;
  } catch (const oi::abi::StatusError& e) {
    std::string why = e.what();
    if (why.rfind("glsl emitter: ", 0) == 0) why = why.substr(14);
    throw oi::abi::StatusError(e.code(), "glsl emitter: " + context + ": " + why);
  }
}

}  // namespace oi::glsl
