// The C emitter plugin (target "c"): the plan's JSON in, NAME.h, NAME.c and NAME_main.c out.
// No exception crosses the C ABI: every failure becomes a status with a message.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c_generator.hpp"
#include "kernel_library.hpp"
#include "openinfer/device_limit.hpp"
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
      throw oi::abi::StatusError(OI_STATUS_INVALID_ARGUMENT, "c emitter: unknown option '" +
                                                                 option +
                                                                 "' (the one option is "
                                                                 "embed_weights=1)");
  }
  auto o = std::make_unique<Output>();
  try {
    // The model's tensors come with the request (ABI 3): the emitter never opens the model.
    const bool has_tensors = request->abi_version >= 3 &&
                             OI_STRUCT_HAS(request, oi_emit_request, num_tensors) &&
                             (request->num_tensors == 0 || request->tensors != nullptr);
    oi::c_emitter::WeightLookup lookup =
        [&](const std::string& name) -> std::optional<oi::c_emitter::ModelTensor> {
      for (uint32_t i = 0; has_tensors && i < request->num_tensors; ++i) {
        const oi_emit_tensor& t = request->tensors[i];
        if (t.name == nullptr || name != t.name) continue;
        return oi::c_emitter::ModelTensor{
            t.dtype, std::vector<uint64_t>(t.dims, t.dims + t.rank),
            std::string(static_cast<const char*>(t.data), static_cast<size_t>(t.size))};
      }
      return std::nullopt;
    };
    if (embed && !has_tensors)
      throw oi::abi::StatusError(OI_STATUS_INCOMPATIBLE,
                                 "c emitter: --embed-weights needs a host of plugin ABI 3, which "
                                 "passes the model's tensors with the request");
    // The C kernel library installed beside this plugin: the fallback for what the emitter's
    // own writers refuse.
    std::string library_missing;
    const auto* library = oi::c_emitter::KernelLibrary::beside_plugin(&library_missing);
    o->generated =
        oi::c_emitter::generate_c(request->plan_json, request->name, embed ? &lookup : nullptr,
                                  &lookup, library, library_missing);
  } catch (const oi::abi::StatusError&) {
    throw;
  } catch (const oi::emit::DeviceLimit& e) {  // the one refusal: the device lacks something
    throw oi::abi::StatusError(OI_STATUS_UNIMPLEMENTED, e.what());
  } catch (const oi::c_emitter::CGap& e) {  // a listed gap (docs/synth.md)
    throw oi::abi::StatusError(OI_STATUS_UNIMPLEMENTED, e.what());
  } catch (const oi::c_emitter::InvalidPlan& e) {
    throw oi::abi::StatusError(OI_STATUS_INVALID_ARGUMENT, e.what());
  } catch (const oi::c_emitter::LibraryInstead& e) {  // never escapes kernel(): a bug
    throw oi::abi::StatusError(OI_STATUS_INTERNAL,
                               std::string("c emitter: internal error: ") + e.what());
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
