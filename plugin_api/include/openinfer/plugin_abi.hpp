// Header-only helpers for plugin authors writing C++: turn exceptions into oi_status at the
// boundary and read kernel settings. Nothing here is part of the ABI itself.
//
//   oi_status* my_kernel(const oi_kernel_call* call) {
//     OI_ABI_TRY
//       double beta = oi::abi::setting_float(*call, "beta", 1.0);
//       ...
//     OI_ABI_CATCH(call->host)
//   }
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "openinfer/plugin_abi.h"

namespace oi::abi {

// Throw this inside OI_ABI_TRY to return a status with a specific code. A kernel whose operands
// are beyond its limits throws StatusError(OI_STATUS_DECLINED, why) before it writes anything:
// the host then runs the call on its fallback backend (ABI 2).
class StatusError : public std::runtime_error {
 public:
  StatusError(oi_status_code code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  oi_status_code code() const noexcept { return code_; }

 private:
  oi_status_code code_;
};

inline oi_status* make_status(const oi_host_api* host, oi_status_code code,
                              const char* message) noexcept {
  if (host == nullptr || host->status_create == nullptr) return nullptr;
  return host->status_create(static_cast<uint32_t>(code), message);
}

// Converts the exception being handled into a status. Call only inside a catch block.
inline oi_status* status_from_current_exception(const oi_host_api* host) noexcept {
  try {
    throw;
  } catch (const StatusError& e) {
    return make_status(host, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return make_status(host, OI_STATUS_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return make_status(host, OI_STATUS_INTERNAL, e.what());
  } catch (...) {
    return make_status(host, OI_STATUS_INTERNAL, "unknown exception inside the plugin");
  }
}

// The named setting of a kernel call, or nullptr.
inline const oi_setting* find_setting(const oi_kernel_call& call, std::string_view name) {
  for (uint32_t i = 0; i < call.num_settings; ++i) {
    const oi_setting& s = call.settings[i];
    if (s.name != nullptr && name == s.name) return &s;
  }
  return nullptr;
}

// A numeric setting as double (INT, FLOAT and BOOL all convert), or `fallback` when absent.
inline double setting_float(const oi_kernel_call& call, std::string_view name, double fallback) {
  const oi_setting* s = find_setting(call, name);
  if (s == nullptr) return fallback;
  if (s->type == OI_SETTING_FLOAT) return s->float_value;
  if (s->type == OI_SETTING_INT || s->type == OI_SETTING_BOOL) {
    return static_cast<double>(s->int_value);
  }
  throw StatusError(OI_STATUS_INVALID_ARGUMENT,
                    "setting '" + std::string(name) + "' is not a number");
}

// An integral setting (INT, BOOL, DTYPE, or a FLOAT holding an integer), or `fallback`.
inline int64_t setting_int(const oi_kernel_call& call, std::string_view name, int64_t fallback) {
  const oi_setting* s = find_setting(call, name);
  if (s == nullptr) return fallback;
  if (s->type == OI_SETTING_INT || s->type == OI_SETTING_BOOL || s->type == OI_SETTING_DTYPE) {
    return s->int_value;
  }
  if (s->type == OI_SETTING_FLOAT && s->float_value >= -9.2233720368547758e18 &&
      s->float_value < 9.2233720368547758e18 &&
      static_cast<double>(static_cast<int64_t>(s->float_value)) == s->float_value) {
    return static_cast<int64_t>(s->float_value);
  }
  throw StatusError(OI_STATUS_INVALID_ARGUMENT,
                    "setting '" + std::string(name) + "' is not an integer");
}

inline bool setting_bool(const oi_kernel_call& call, std::string_view name, bool fallback) {
  const oi_setting* s = find_setting(call, name);
  if (s == nullptr) return fallback;
  if (s->type == OI_SETTING_BOOL || s->type == OI_SETTING_INT) return s->int_value != 0;
  throw StatusError(OI_STATUS_INVALID_ARGUMENT,
                    "setting '" + std::string(name) + "' is not a bool");
}

inline std::string_view setting_string(const oi_kernel_call& call, std::string_view name,
                                       std::string_view fallback) {
  const oi_setting* s = find_setting(call, name);
  if (s == nullptr) return fallback;
  if (s->type == OI_SETTING_STRING && s->string_value != nullptr) return s->string_value;
  throw StatusError(OI_STATUS_INVALID_ARGUMENT,
                    "setting '" + std::string(name) + "' is not a string");
}

// Writes `value` into a struct the host allocated (oi_plugin_info, oi_device_info): only the
// bytes that both the host's struct_size and this header's sizeof cover.
template <class T>
inline void write_versioned(T* out, T value) {
  uint32_t size =
      out->struct_size < sizeof(T) ? out->struct_size : static_cast<uint32_t>(sizeof(T));
  value.struct_size = size;
  value.abi_version = OI_PLUGIN_ABI_VERSION;
  std::memcpy(static_cast<void*>(out), &value, size);
}

// Sends a message through the host's log (oi_host_api.log, ABI 2): the host prefixes the
// plugin's name and decides where it goes. A host of ABI 1 has no log, so the message goes to
// stderr there, DEBUG dropped. Never throws.
inline void log(const oi_host_api* host, oi_log_level level, const char* message) noexcept {
  if (message == nullptr) message = "";
  if (host != nullptr && host->abi_version >= 2 && OI_STRUCT_HAS(host, oi_host_api, log) &&
      host->log != nullptr) {
    host->log(host, static_cast<uint32_t>(level), message);
    return;
  }
  if (level == OI_LOG_DEBUG) return;
  const char* prefix = level == OI_LOG_ERROR     ? "error: "
                       : level == OI_LOG_WARNING ? "warning: "
                                                 : "";
  std::fprintf(stderr, "%s%s\n", prefix, message);
}

inline void log(const oi_host_api* host, oi_log_level level, const std::string& message) noexcept {
  log(host, level, message.c_str());
}

// Number of elements of a tensor operand.
inline uint64_t element_count(const oi_tensor_desc& t) {
  uint64_t n = 1;
  for (uint32_t i = 0; i < t.rank; ++i) n *= t.dims[i];
  return n;
}

}  // namespace oi::abi

// Wrap the body of every function that crosses the ABI: exceptions become a status.
#define OI_ABI_TRY try {
#define OI_ABI_CATCH(host)                                 \
  }                                                        \
  catch (...) {                                            \
    return ::oi::abi::status_from_current_exception(host); \
  }                                                        \
  return nullptr;
