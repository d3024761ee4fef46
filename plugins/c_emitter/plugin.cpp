// The C emitter plugin (target "c"): the plan's JSON in, NAME.h, NAME.c and NAME_main.c out.
// No exception crosses the C ABI: every failure becomes a status with a message.
#include <memory>
#include <string>
#include <vector>

#include "c_generator.hpp"
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
  for (uint32_t i = 0; i < request->num_options; ++i)
    throw oi::abi::StatusError(
        OI_STATUS_UNIMPLEMENTED,
        std::string("c emitter: option '") + request->options[i] + "' is not supported yet");
  auto o = std::make_unique<Output>();
  try {
    o->generated = oi::c_emitter::generate_c(request->plan_json, request->name);
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
  info.description = "C11 source from a synthesizer plan (first slice: elementwise kernels)";
  info.emitter = &kApi;
  oi::abi::write_versioned(out, info);
  return nullptr;
}
