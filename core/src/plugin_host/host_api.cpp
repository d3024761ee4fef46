// The oi_host_api tables (one per plugin file, so that a log message names its plugin), the
// plugin log sink, and the conversion between oi_status and oi::Error.
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "openinfer/error.hpp"
#include "plugin_host_internal.hpp"

struct oi_status {
  uint32_t code;
  std::string message;
};

namespace oi {

std::string_view log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warning:
      return "warning";
    case LogLevel::Error:
      return "error";
  }
  return "unknown";
}

void default_plugin_log_sink(const PluginLogMessage& m) {
  if (m.level == LogLevel::Debug) return;
  std::string line = "plugin '" + std::string(m.plugin) + "': ";
  if (m.level != LogLevel::Info) line += std::string(log_level_name(m.level)) + ": ";
  line.append(m.message);
  line += '\n';
  std::fputs(line.c_str(), stderr);  // one write: lines of concurrent plugins do not interleave
}

}  // namespace oi

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

void log_message(const oi_host_api* host, uint32_t level, const char* message);

// One plugin file's table and the name its messages carry.
struct PluginHostTable {
  oi_host_api api{sizeof(oi_host_api), OI_PLUGIN_ABI_VERSION, status_create, status_code,
                  status_message,      status_free,           log_message};
  std::string name;
};

// Process-wide and never destroyed: a plugin keeps its table, and threads it started may log,
// until the process ends (plugin libraries are never unloaded).
struct HostState {
  std::mutex mutex;  // the maps and the names
  std::map<std::string, std::unique_ptr<PluginHostTable>> by_path;
  std::map<const oi_host_api*, PluginHostTable*> by_api;
  std::mutex sink_mutex;  // serialises sink calls and guards `sink`
  PluginLogSink sink;
};

HostState& host_state() {
  static HostState* state = new HostState;
  return *state;
}

void log_message(const oi_host_api* host, uint32_t level, const char* message) {
  try {
    HostState& s = host_state();
    std::string name = "?";
    {
      std::lock_guard lock(s.mutex);
      if (auto it = s.by_api.find(host); it != s.by_api.end()) name = it->second->name;
    }
    const LogLevel checked =
        level > static_cast<uint32_t>(LogLevel::Error) ? LogLevel::Error : LogLevel(level);
    const PluginLogMessage m{name, checked, message != nullptr ? message : ""};
    std::lock_guard lock(s.sink_mutex);
    if (s.sink) {
      s.sink(m);
    } else {
      default_plugin_log_sink(m);
    }
  } catch (...) {
    // A message that cannot be delivered (no memory, a throwing sink) is dropped: nothing
    // may cross back into the plugin.
  }
}

// The table for status calls made outside any plugin (the host's own bookkeeping).
const oi_host_api host_table{sizeof(oi_host_api), OI_PLUGIN_ABI_VERSION, status_create, status_code,
                             status_message,      status_free,           log_message};

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
    case OI_STATUS_DECLINED:
      return "declined";
    default:
      return "unknown status code";
  }
}

}  // namespace

const oi_host_api* host_api() {
  return &host_table;
}

const oi_host_api* host_api_for(const std::filesystem::path& path) {
  HostState& s = host_state();
  std::lock_guard lock(s.mutex);
  auto& table = s.by_path[path.string()];
  if (!table) {
    table = std::make_unique<PluginHostTable>();
    table->name = path.filename().string();
    s.by_api.emplace(&table->api, table.get());
  }
  return &table->api;
}

void set_host_api_name(const oi_host_api* host, const std::string& name) {
  HostState& s = host_state();
  std::lock_guard lock(s.mutex);
  if (auto it = s.by_api.find(host); it != s.by_api.end()) it->second->name = name;
}

uint32_t status_code_of(const oi_status* status) {
  return status_code(status);
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

namespace oi {

PluginLogSink set_plugin_log_sink(PluginLogSink sink) {
  auto& s = plugin_host::host_state();
  std::lock_guard lock(s.sink_mutex);
  std::swap(s.sink, sink);
  return sink;
}

}  // namespace oi
