// Plan::emit: the plan crosses the emitter ABI as JSON; the files come back and are written.
#include "openinfer/plugin_host.hpp"
#include "openinfer/synth.hpp"

namespace oi {

std::vector<std::filesystem::path> Plan::emit(const PluginRegistry& registry,
                                              const std::filesystem::path& dir,
                                              const EmitOptions& options) const {
  const std::string target =
      !options.target.empty() ? options.target : (device.is_cpu() ? "c" : "glsl");
  EmitRequest request{to_json(), device.to_json(), options.name, model.origin(), options.options};
  // The model's tensors travel with the request (ABI 3), so emitters never open the model:
  // views into its mapping, alive as long as the plan.
  std::vector<Tensor> views;
  views.reserve(model.tensors().size());
  for (const TensorEntry& t : model.tensors()) {
    if (!t.has_data) continue;
    views.push_back(model.tensor(t));
    request.tensors.push_back(
        {t.name, static_cast<uint32_t>(t.dtype), t.dims, views.back().bytes()});
  }
  const std::vector<EmittedFile> files = registry.emitter(target)->emit(request);
  write_emitted_files(dir, files);
  std::vector<std::filesystem::path> paths;
  for (const EmittedFile& f : files) paths.push_back(dir / f.path);
  return paths;
}

}  // namespace oi
