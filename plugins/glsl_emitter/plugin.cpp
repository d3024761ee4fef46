// The glsl emitter plugin (docs/synth-glsl.md): target "glsl" of `openinfer synth`. The plan
// and the device description arrive as JSON; the files go back through oi_emit_output.
#include <memory>
#include <string>
#include <vector>

#include "openinfer/plugin_abi.hpp"
#include "output_writer.hpp"
#include "refusal.hpp"

namespace {

const oi_host_api* g_host = nullptr;

struct Output {
  std::vector<oi::glsl::OutputFile> files;
  std::vector<oi_emitted_file> table;
};

oi_status* emit(void*, const oi_emit_request* req, oi_emit_output* out) {
  OI_ABI_TRY
  if (req == nullptr || out == nullptr || req->plan_json == nullptr || req->device_json == nullptr)
    oi::glsl::invalid_plan("no plan or device");
  bool embed = false;
  for (uint32_t i = 0; i < req->num_options; ++i) {
    const std::string opt = req->options[i] ? req->options[i] : "";
    if (opt == "embed_weights=1")
      embed = true;
    else
      oi::glsl::invalid_plan("unknown option '" + opt + "'");
  }
  auto o = std::make_unique<Output>();
  // The model's tensors (ABI 3): scalars for settings that name a constant, and the weights
  // --embed-weights compiles into the host program.
  const bool has_tensors = req->abi_version >= 3 &&
                           OI_STRUCT_HAS(req, oi_emit_request, num_tensors) &&
                           (req->num_tensors == 0 || req->tensors != nullptr);
  if (embed && !has_tensors)
    oi::glsl::invalid_plan("--embed-weights needs the model's tensors in the emit request (ABI 3)");
  std::vector<oi::glsl::ModelTensor> tensors;
  for (uint32_t i = 0; embed && i < req->num_tensors; ++i) {
    const oi_emit_tensor& t = req->tensors[i];
    if (t.name == nullptr || (t.data == nullptr && t.size != 0) || (t.rank && !t.dims))
      oi::glsl::invalid_plan("emit request tensor #" + std::to_string(i) + " is malformed");
    tensors.push_back({t.name, t.dtype, std::vector<uint64_t>(t.dims, t.dims + t.rank),
                       std::string_view(static_cast<const char*>(t.data), t.size)});
  }
  const oi::glsl::ModelScalar model = [&](const std::string& name,
                                          uint32_t dtype) -> std::optional<std::string> {
    for (uint32_t i = 0; has_tensors && i < req->num_tensors; ++i) {
      const oi_emit_tensor& t = req->tensors[i];
      if (t.name == nullptr || name != t.name) continue;
      uint64_t n = 1;
      for (uint32_t d = 0; d < t.rank; ++d) n *= t.dims[d];
      if (t.dtype != dtype || n != 1 || t.data == nullptr) return std::nullopt;
      return std::string(static_cast<const char*>(t.data), static_cast<size_t>(t.size));
    }
    return std::nullopt;
  };
  o->files =
      oi::glsl::write_output(req->plan_json, req->device_json, req->name ? req->name : "model",
                             model, embed ? &tensors : nullptr);
  for (const auto& f : o->files)
    o->table.push_back({sizeof(oi_emitted_file), OI_PLUGIN_ABI_VERSION, f.path.c_str(),
                        f.data.data(), f.data.size()});
  out->files = o->table.data();
  out->num_files = static_cast<uint32_t>(o->table.size());
  out->handle = o.release();
  return nullptr;
  OI_ABI_CATCH(g_host)
}

void release(void*, oi_emit_output* out) {
  if (out != nullptr) delete static_cast<Output*>(out->handle);
}

const oi_emitter_api kApi = {sizeof(oi_emitter_api), OI_PLUGIN_ABI_VERSION, "glsl", emit, release};

}  // namespace

extern "C" OI_PLUGIN_EXPORT oi_status* openinfer_plugin_init(uint32_t, const oi_host_api* host,
                                                             oi_plugin_info* out) {
  g_host = host;
  oi_plugin_info info{};
  info.kind = OI_PLUGIN_KIND_EMITTER;
  info.score = 1;
  info.name = "glsl_emitter";
  info.version = "0.1.0";
  info.description = "GLSL compute shaders, a plan manifest and a Vulkan host program";
  info.emitter = &kApi;
  oi::abi::write_versioned(out, info);
  return nullptr;
}
