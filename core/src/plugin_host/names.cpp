// Display names of the plugin host's enums, as `openinfer plugins` prints them.
#include "openinfer/plugin_host.hpp"

namespace oi {

std::string_view plugin_kind_name(PluginKind kind) {
  switch (kind) {
    case PluginKind::Backend:
      return "backend";
    case PluginKind::Kernels:
      return "kernels";
    case PluginKind::Emitter:
      return "emitter";
  }
  return "unknown";
}

std::string_view kernel_mode_name(KernelMode mode) {
  switch (mode) {
    case KernelMode::Normal:
      return "normal";
    case KernelMode::InPlace:
      return "inplace";
    case KernelMode::Accumulate:
      return "accumulate";
  }
  return "unknown";
}

std::string_view skip_reason_name(SkipReason reason) {
  switch (reason) {
    case SkipReason::NotAPlugin:
      return "not a plugin";
    case SkipReason::MissingEntryPoint:
      return "missing entry point";
    case SkipReason::AbiTooNew:
      return "ABI too new";
    case SkipReason::InitFailed:
      return "init failed";
    case SkipReason::Shadowed:
      return "shadowed";
  }
  return "unknown";
}

}  // namespace oi
