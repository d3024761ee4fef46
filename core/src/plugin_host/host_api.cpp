// The oi_host_api table and the conversion between oi_status and oi::Error.
#include <new>
#include <string>

#include "openinfer/error.hpp"
#include "plugin_host_internal.hpp"

struct oi_status {
  uint32_t code;
  std::string message;
};

namespace oi::plugin_host {
namespace {

// Returned when allocating a status fails; never freed.
oi_status out_of_memory_status{OI_STATUS_OUT_OF_MEMORY, "out of memory"};

oi_status* status_create(uint32_t code, const char* message) {
  try {
    uint32_t checked = code == OI_STATUS_OK ? static_cast<uint32_t>(OI_STATUS_INTERNAL) : code;
    return new oi_status{checked, message != nullptr ? message : ""};
  } catch (...) {
    return &out_of_memory_status;
  }
}

uint32_t status_code(const oi_status* status) {
  return status ? status->code : static_cast<uint32_t>(OI_STATUS_OK);
}

const char* status_message(const oi_status* status) {
  return status ? status->message.c_str() : "";
}

void status_free(oi_status* status) {
  if (status != &out_of_memory_status) delete status;
}

const oi_host_api host_table{sizeof(oi_host_api), OI_PLUGIN_ABI_VERSION, status_create,
                             status_code,         status_message,        status_free};

std::string_view code_name(uint32_t code) {
  switch (code) {
    case OI_STATUS_INVALID_ARGUMENT:
      return "invalid argument";
    case OI_STATUS_NOT_FOUND:
      return "not found";
    case OI_STATUS_UNIMPLEMENTED:
      return "unimplemented";
    case OI_STATUS_UNAVAILABLE:
      return "unavailable";
    case OI_STATUS_INCOMPATIBLE:
      return "incompatible";
    case OI_STATUS_INTERNAL:
      return "internal error";
    case OI_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    default:
      return "unknown status code";
  }
}

}  // namespace

const oi_host_api* host_api() {
  return &host_table;
}

std::string take_status_message(oi_status* status) {
  if (status == nullptr) return {};
  std::string message =
      status->message.empty() ? std::string(code_name(status->code)) : status->message;
  status_free(status);
  return message;
}

void throw_if_error(oi_status* status, std::string_view context) {
  if (status == nullptr) return;
  uint32_t code = status->code;
  std::string message = std::string(context) + ": " + take_status_message(status);
  bool environment = code == OI_STATUS_UNAVAILABLE || code == OI_STATUS_INCOMPATIBLE;
  throw Error(environment ? ErrorKind::Environment : ErrorKind::Input, message);
}

}  // namespace oi::plugin_host
