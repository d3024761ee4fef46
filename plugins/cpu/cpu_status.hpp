// Status helpers of the CPU plugin: the host API saved at init, and a throw helper for code that
// runs inside OI_ABI_TRY.
#pragma once

#include <string>

#include "openinfer/plugin_abi.hpp"

namespace oi::cpu {

// Set once by openinfer_plugin_init; valid while the plugin is loaded.
inline const oi_host_api*& host() {
  static const oi_host_api* api = nullptr;
  return api;
}

[[noreturn]] inline void fail(oi_status_code code, const std::string& message) {
  throw oi::abi::StatusError(code, message);
}

}  // namespace oi::cpu
