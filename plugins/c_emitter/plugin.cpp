// The C emitter plugin (target "c"): the plan's JSON in, NAME.h, NAME.c and NAME_main.c out.
// No exception crosses the C ABI: every failure becomes a status with a message.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c_generator.hpp"
#include "kernel_library.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_abi.hpp"

namespace {

const oi_host_api* g_host = nullptr;

struct Output {
  std::vector<oi::c_emitter::GeneratedFile> generated;
  std::vector<oi_emitted_file> files;
};

oi_status* emit(void*, const oi_emit_request* request, oi_emit_output* out) {
  OI_ABI_TRY
  if (request == nullptr || request->plan_json == nullptr || request->name == nullptr)
    throw oi::abi::StatusError(OI_STATUS_INVALID_ARGUMENT, "c emitter: no plan or name");
  bool embed = false;
  for (uint32_t i = 0; i < request->num_options; ++i) {
    const std::string option = request->options[i];
    if (option == "embed_weights=1")
      embed = true;
    else
      throw oi::abi::StatusError(OI_STATUS_UNIMPLEMENTED,
                                 "c emitter: option '" + option + "' is not supported yet");
  }
  auto o = std::make_unique<Output>();
  try {
    // --embed-weights: the model's tensors, read here through the core's validating reader.
    std::optional<oi::Model> model;
    oi::c_emitter::WeightLookup lookup =
        [&](const std::string& name) -> std::optional<oi::c_emitter::ModelTensor> {
      const oi::TensorEntry* t = model->find_tensor(name);
      if (!t || !t->has_data) return std::nullopt;
      const oi::Tensor tensor = model->tensor(*t);
      const auto bytes = tensor.bytes();
      return oi::c_emitter::ModelTensor{
          static_cast<uint32_t>(t->dtype), t->dims,
          std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())};
    };
    // The model is opened when the emitter first asks (constants that settings name), or up
    // front for --embed-weights.
    const std::string model_path = request->model_path ? request->model_path : "";
    oi::c_emitter::WeightLookup settings_lookup =
        [&](const std::string& name) -> std::optional<oi::c_emitter::ModelTensor> {
      if (model_path.empty()) return std::nullopt;
      if (!model) model = oi::Model::open(model_path);
      return lookup(name);
    };
    if (embed) model = oi::Model::open(model_path);
    // The C kernel library installed beside this plugin: the fallback for what the emitter's
    // own writers refuse.
    std::string library_missing;
    const auto* library = oi::c_emitter::KernelLibrary::beside_plugin(&library_missing);
    o->generated =
        oi::c_emitter::generate_c(request->plan_json, request->name, embed ? &lookup : nullptr,
                                  &settings_lookup, library, library_missing);
  } catch (const oi::c_emitter::CUnsupported& e) {
    throw oi::abi::StatusError(OI_STATUS_UNIMPLEMENTED, e.what());
  } catch (const std::exception& e) {
    throw oi::abi::StatusError(OI_STATUS_INVALID_ARGUMENT, std::string("c emitter: ") + e.what());
  }
  for (const auto& f : o->generated)
    o->files.push_back({sizeof(oi_emitted_file), OI_PLUGIN_ABI_VERSION, f.path.c_str(),
                        f.text.data(), f.text.size()});
  out->files = o->files.data();
  out->num_files = static_cast<uint32_t>(o->files.size());
  out->handle = o.release();
  return nullptr;
  OI_ABI_CATCH(g_host)
}

void release(void*, oi_emit_output* out) {
  delete static_cast<Output*>(out->handle);
}

const oi_emitter_api kApi = {sizeof(oi_emitter_api), OI_PLUGIN_ABI_VERSION, "c", emit, release};

}  // namespace

extern "C" OI_PLUGIN_EXPORT oi_status* openinfer_plugin_init(uint32_t, const oi_host_api* host,
                                                             oi_plugin_info* out) {
  g_host = host;
  oi_plugin_info info{};
  info.kind = OI_PLUGIN_KIND_EMITTER;
  info.name = "c_emitter";
  info.version = "0.1.0";
  info.description =
      "C11 source from a synthesizer plan (fused elementwise loops, matmul, conv and the other "
      "ops, every catalog dtype and mode through the C kernel library; docs/synth.md)";
  info.emitter = &kApi;
  oi::abi::write_versioned(out, info);
  return nullptr;
}
