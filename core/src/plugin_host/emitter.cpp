// Emitter plugins: the plan goes out as JSON, files come back and are checked before the host
// writes them (atomically, under the output directory only).
#include <cctype>
#include <set>
#include <span>

#include "../oinf/atomic_file.hpp"
#include "openinfer/error.hpp"
#include "plugin_host_internal.hpp"

namespace oi {

struct Emitter::State {
  std::shared_ptr<plugin_host::LoadedPlugin> plugin;
  const oi_emitter_api* api = nullptr;
  std::string target;
};

namespace {

// Relative, '/'-separated, every part of [A-Za-z0-9._-] and neither "." nor "..".
std::string path_problem(std::string_view path) {
  if (path.empty()) return "is empty";
  if (path.front() == '/') return "is absolute";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return "has an empty, '.' or '..' part";
    for (char ch : part)
      if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-'))
        return "has a character outside [A-Za-z0-9._-]";
    start = end + 1;
  }
  return {};
}

}  // namespace

Emitter::Emitter(std::shared_ptr<State> state) : state_(std::move(state)) {}

const std::string& Emitter::target() const {
  return state_->target;
}

const PluginDescription& Emitter::plugin() const {
  return state_->plugin->description;
}

std::vector<EmittedFile> Emitter::emit(const EmitRequest& request) const {
  const std::string who = "emitter '" + state_->target + "' (" + plugin().name + ")";
  std::vector<const char*> options;
  for (const std::string& o : request.options) options.push_back(o.c_str());
  oi_emit_request req{};
  req.struct_size = sizeof(req);
  req.abi_version = OI_PLUGIN_ABI_VERSION;
  req.plan_json = request.plan_json.c_str();
  req.device_json = request.device_json.c_str();
  req.name = request.name.c_str();
  req.model_path = request.model_path.c_str();
  req.options = options.data();
  req.num_options = static_cast<uint32_t>(options.size());
  std::vector<oi_emit_tensor> tensors;
  for (const EmitTensor& t : request.tensors)
    tensors.push_back({sizeof(oi_emit_tensor), OI_PLUGIN_ABI_VERSION, t.name.c_str(), t.dtype,
                       static_cast<uint32_t>(t.dims.size()), t.dims.data(), t.data.data(),
                       t.data.size()});
  req.tensors = tensors.data();
  req.num_tensors = static_cast<uint32_t>(tensors.size());
  oi_emit_output out{};
  out.struct_size = sizeof(out);
  out.abi_version = OI_PLUGIN_ABI_VERSION;
  void* context = state_->plugin->info.context;
  plugin_host::throw_if_error(state_->api->emit(context, &req, &out), who);
  struct Release {
    const oi_emitter_api* api;
    void* context;
    oi_emit_output* out;
    ~Release() { api->release(context, out); }
  } release{state_->api, context, &out};

  if (out.num_files > 0 && out.files == nullptr)
    throw input_error(who + " reported files but no file table");
  std::vector<EmittedFile> files;
  std::set<std::string> seen;
  for (uint32_t i = 0; i < out.num_files; ++i) {
    const oi_emitted_file& f = out.files[i];
    const std::string where = who + " file #" + std::to_string(i);
    if (f.struct_size < offsetof(oi_emitted_file, size) + sizeof(f.size))
      throw input_error(where + " has struct_size " + std::to_string(f.struct_size));
    if (f.path == nullptr) throw input_error(where + " has no path");
    if (f.size > 0 && f.data == nullptr) throw input_error(where + " (" + f.path + ") has no data");
    if (std::string problem = path_problem(f.path); !problem.empty())
      throw input_error(where + ": path '" + std::string(f.path) + "' " + problem);
    if (!seen.insert(f.path).second)
      throw input_error(where + ": path '" + std::string(f.path) + "' appears twice");
    files.push_back({f.path, std::string(f.data ? f.data : "", f.size)});
  }
  return files;
}

void write_emitted_files(const std::filesystem::path& dir, const std::vector<EmittedFile>& files) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    throw input_error("cannot create the output directory: " + error.message(), dir.string());
  for (const EmittedFile& f : files) {
    if (std::string problem = path_problem(f.path); !problem.empty())
      throw input_error("path '" + f.path + "' " + problem, dir.string());
    const std::filesystem::path target = dir / f.path;
    std::filesystem::create_directories(target.parent_path(), error);
    if (error)
      throw input_error("cannot create directory: " + error.message(),
                        target.parent_path().string());
    oinf::AtomicFile out(target);
    out.write(std::as_bytes(std::span(f.data.data(), f.data.size())));
    out.commit();
  }
}

namespace plugin_host {

std::shared_ptr<Emitter> make_emitter(std::shared_ptr<LoadedPlugin> plugin) {
  auto state = std::make_shared<Emitter::State>();
  state->api = plugin->info.emitter;
  state->target = plugin->description.target_backend;
  state->plugin = std::move(plugin);
  return std::make_shared<Emitter>(std::move(state));
}

}  // namespace plugin_host
}  // namespace oi
