#define BOOST_TEST_MODULE plugins_loader
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <cstring>

#include "openinfer/error.hpp"
#include "openinfer/plugin_abi.hpp"
#include "openinfer/plugin_host.hpp"
#include "plugin_test_support.hpp"

using namespace plugin_test;
using oi::SkipReason;

namespace {

const oi::SkippedPlugin* skipped_file(const oi::PluginRegistry& r, const fs::path& file) {
  for (const auto& s : r.skipped()) {
    if (s.path.filename() == file.filename()) return &s;
  }
  return nullptr;
}

const oi::PluginDescription* loaded(const std::vector<oi::PluginDescription>& all,
                                    const std::string& name) {
  for (const auto& p : all) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// One folder with every fixture plus a text file.
fs::path mixed_dir() {
  fs::path dir = fresh_dir("mixed");
  for (auto name : {"softplus_kernels", "no_entry_point", "too_new_abi", "init_fails", "throws",
                    "old_abi_backend"}) {
    copy_into(dir, fixture(name));
  }
  write_text(dir / "README.txt", "not a library\n");
  return dir;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_file_is_loaded_or_reported_with_its_reason) {
  fs::path dir = mixed_dir();
  auto registry = oi::PluginRegistry::discover({dir});
  auto plugins = registry.plugins();
  BOOST_TEST(plugins.size() == 3u);
  BOOST_TEST(registry.skipped().size() == 4u);

  const auto* softplus = loaded(plugins, "softplus");
  BOOST_REQUIRE(softplus);
  BOOST_TEST((softplus->kind == oi::PluginKind::Kernels));
  BOOST_TEST(softplus->version == "1.0.0");
  BOOST_TEST(softplus->abi_version == 3u);
  BOOST_TEST(softplus->target_backend == "cpu");
  BOOST_TEST(softplus->kernel_count == 3u);
  BOOST_TEST(softplus->path == dir / fixture("softplus_kernels").filename());
  BOOST_TEST(loaded(plugins, "thrower"));
  BOOST_TEST(loaded(plugins, "legacy"));
  BOOST_TEST(loaded(plugins, "legacy")->abi_version == 1u);

  const auto* text = skipped_file(registry, dir / "README.txt");
  BOOST_REQUIRE(text);
  BOOST_TEST((text->reason == SkipReason::NotAPlugin));
  const auto* no_entry = skipped_file(registry, fixture("no_entry_point"));
  BOOST_REQUIRE(no_entry);
  BOOST_TEST((no_entry->reason == SkipReason::MissingEntryPoint));
  BOOST_TEST(no_entry->detail.find("openinfer_plugin_init") != std::string::npos);
  const auto* too_new = skipped_file(registry, fixture("too_new_abi"));
  BOOST_REQUIRE(too_new);
  BOOST_TEST((too_new->reason == SkipReason::AbiTooNew));
  BOOST_TEST(too_new->detail.find("plugin ABI 4, this host supports 1 to 3") != std::string::npos);
  const auto* fails = skipped_file(registry, fixture("init_fails"));
  BOOST_REQUIRE(fails);
  BOOST_TEST((fails->reason == SkipReason::InitFailed));
  BOOST_TEST(fails->detail == "no widget device found");
}

BOOST_AUTO_TEST_CASE(skip_reasons_have_names) {
  BOOST_TEST(oi::skip_reason_name(SkipReason::NotAPlugin) == "not a plugin");
  BOOST_TEST(oi::skip_reason_name(SkipReason::MissingEntryPoint) == "missing entry point");
  BOOST_TEST(oi::skip_reason_name(SkipReason::AbiTooNew) == "ABI too new");
  BOOST_TEST(oi::skip_reason_name(SkipReason::InitFailed) == "init failed");
  BOOST_TEST(oi::skip_reason_name(SkipReason::Shadowed) == "shadowed");
}

BOOST_AUTO_TEST_CASE(first_plugin_of_a_name_wins_and_later_ones_are_shadowed) {
  fs::path first = fresh_dir("shadow_first"), second = fresh_dir("shadow_second");
  fs::path winner = copy_into(first, fixture("softplus_kernels"));
  fs::path loser = copy_into(second, fixture("softplus_kernels"), "libcopy_of_softplus.so");
  auto registry = oi::PluginRegistry::discover({first, second});
  BOOST_REQUIRE(registry.plugins().size() == 1u);
  BOOST_TEST(registry.plugins()[0].path == winner);
  BOOST_REQUIRE(registry.skipped().size() == 1u);
  BOOST_TEST((registry.skipped()[0].reason == SkipReason::Shadowed));
  BOOST_TEST(registry.skipped()[0].path == loser);
  BOOST_TEST(registry.skipped()[0].detail.find(winner.string()) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_missing_directory_is_reported_and_the_rest_still_load) {
  fs::path good = fresh_dir("after_missing");
  copy_into(good, fixture("softplus_kernels"));
  fs::path missing = fs::path(TEST_WORK_DIR) / "does_not_exist";
  auto registry = oi::PluginRegistry::discover({missing, good});
  BOOST_TEST(registry.plugins().size() == 1u);
  BOOST_REQUIRE(registry.skipped().size() == 1u);
  BOOST_TEST(registry.skipped()[0].detail == "no such directory");
}

BOOST_AUTO_TEST_CASE(kernels_plugins_extend_the_backend_they_name) {
  auto registry = oi::PluginRegistry::discover({cpu_plugin_dir(), mixed_dir()});
  auto cpu = registry.backend("cpu");
  const oi::DType f32 = oi::DType::f32;
  const oi::Kernel* k = cpu->find_kernel("softplus", std::vector{f32}, f32, oi::KernelMode::Normal);
  BOOST_REQUIRE(k);
  BOOST_TEST(k->provider == "softplus");

  // softplus(x) = log(1 + e^x): by hand, softplus(0) = ln 2, softplus(-inf) = 0, and
  // softplus(100) = 100 (e^-100 vanishes in f32).
  const float in[4] = {0.0f, -INFINITY, 100.0f, 1.0f};
  std::vector<uint64_t> dims{4};
  auto a = cpu->alloc(sizeof in), y = cpu->alloc(sizeof in);
  cpu->upload(*a, 0, std::as_bytes(std::span(in)));
  oi::TensorArg ins[] = {{f32, dims, a.get(), 0}}, outs[] = {{f32, dims, y.get(), 0}};
  cpu->run(*k, ins, outs, {});
  float out[4];
  cpu->download(*y, 0, std::as_writable_bytes(std::span(out)));
  BOOST_TEST(out[0] == 0.69314718f, boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(out[1] == 0.0f);
  BOOST_TEST(out[2] == 100.0f);
  BOOST_TEST(out[3] == 1.3132616f, boost::test_tools::tolerance(1e-6f));

  // The schema the plugin adds, as JSON text for the op catalog.
  auto schemas = registry.op_schemas();
  BOOST_REQUIRE(schemas.size() == 1u);
  BOOST_TEST(schemas[0].plugin == "softplus");
  auto json = boost::json::parse(schemas[0].json).as_object();
  const auto& softplus = json.at("softplus").as_object();
  BOOST_TEST(softplus.at("inputs").as_int64() == 1);
  BOOST_TEST(softplus.at("output_shape").as_string() == "input0");
  BOOST_TEST(softplus.at("setting_defaults").as_object().at("beta").as_double() == 1.0);
}

BOOST_AUTO_TEST_CASE(an_exception_inside_a_plugin_comes_back_as_an_error_with_its_message) {
  auto registry = oi::PluginRegistry::discover({cpu_plugin_dir(), mixed_dir()});
  auto cpu = registry.backend("cpu");
  const oi::DType f32 = oi::DType::f32;
  const oi::Kernel* k = cpu->find_kernel("explode", std::vector{f32}, f32, oi::KernelMode::Normal);
  BOOST_REQUIRE(k);
  std::vector<uint64_t> dims{1};
  auto buf = cpu->alloc(4);
  oi::TensorArg args[] = {{f32, dims, buf.get(), 0}};
  try {
    cpu->run(*k, args, args, {});
    BOOST_FAIL("no error");
  } catch (const oi::Error& e) {
    BOOST_TEST((e.kind() == oi::ErrorKind::Input));
    BOOST_TEST(std::string(e.what()).find("kernel exploded") != std::string::npos);
    BOOST_TEST(std::string(e.what()).find("explode") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(an_older_plugin_with_a_smaller_table_still_loads_and_runs) {
  auto registry = oi::PluginRegistry::discover({mixed_dir()});
  auto legacy = registry.backend("legacy");
  BOOST_TEST(legacy->device_name() == "legacy device");
  BOOST_TEST(!legacy->can_wrap_host_memory());
  const oi::DType f32 = oi::DType::f32;
  const oi::Kernel* add =
      legacy->find_kernel("add", std::vector{f32, f32}, f32, oi::KernelMode::Normal);
  BOOST_REQUIRE(add);
  BOOST_TEST(add->abi_version == 1u);
  BOOST_TEST(!legacy->can_copy_buffers());
  const float a[3] = {1.5f, -2.0f, 0.25f}, b[3] = {2.0f, 0.5f, 0.25f};
  std::vector<uint64_t> dims{3};
  auto ba = legacy->alloc(12), bb = legacy->alloc(12), by = legacy->alloc(12);
  BOOST_TEST(ba->host_pointer() == nullptr);
  legacy->upload(*ba, 0, std::as_bytes(std::span(a)));
  legacy->upload(*bb, 0, std::as_bytes(std::span(b)));
  oi::TensorArg ins[] = {{f32, dims, ba.get(), 0}, {f32, dims, bb.get(), 0}};
  oi::TensorArg outs[] = {{f32, dims, by.get(), 0}};
  legacy->run(*add, ins, outs, {});
  float y[3];
  legacy->download(*by, 0, std::as_writable_bytes(std::span(y)));
  BOOST_TEST(y[0] == 3.5f);
  BOOST_TEST(y[1] == -1.5f);
  BOOST_TEST(y[2] == 0.5f);
  float host[1] = {0};
  BOOST_CHECK_THROW(legacy->wrap_host(host, 4), oi::Error);
}

// One number, one layout: a table that reports ABI 1 ends at ABI 1's 112 bytes, even when its
// struct_size covers buffer_copy (built between the slot's arrival and the version bump).
BOOST_AUTO_TEST_CASE(an_abi_1_plugin_gets_none_of_the_abi_2_fields) {
  fs::path dir = fresh_dir("interim");
  copy_into(dir, fixture("abi1_interim_backend"));
  auto registry = oi::PluginRegistry::discover({dir});
  auto interim = registry.backend("interim");
  BOOST_TEST(interim->plugin().abi_version == 1u);
  BOOST_TEST(!interim->can_copy_buffers());  // its buffer_copy fails if called
  const float data[2] = {1.5f, -4.0f};
  auto src = interim->alloc(8), dst = interim->alloc(8);
  interim->upload(*src, 0, std::as_bytes(std::span(data)));
  interim->copy(*src, 0, *dst, 0, 8);  // through the host
  float out[2] = {0, 0};
  interim->download(*dst, 0, std::as_writable_bytes(std::span(out)));
  BOOST_TEST(out[0] == 1.5f);
  BOOST_TEST(out[1] == -4.0f);

  // Status 8 is OI_STATUS_DECLINED only from ABI 2 kernels: here it is a plain error.
  const oi::DType f32 = oi::DType::f32;
  const oi::Kernel* add =
      interim->find_kernel("add", std::vector{f32, f32}, f32, oi::KernelMode::Normal);
  BOOST_REQUIRE(add);
  std::vector<uint64_t> dims{2};
  oi::TensorArg ins[] = {{f32, dims, src.get(), 0}, {f32, dims, src.get(), 0}};
  oi::TensorArg outs[] = {{f32, dims, dst.get(), 0}};
  try {
    interim->run(*add, ins, outs, {});
    BOOST_FAIL("no error");
  } catch (const oi::KernelDeclined&) {
    BOOST_FAIL("an ABI 1 kernel cannot decline");
  } catch (const oi::Error& e) {
    BOOST_TEST(std::string(e.what()).find("interim: status 8 from an ABI 1 kernel") !=
               std::string::npos);
  }
}

// ABI 1 reserved the emitter kind with an empty table: an ABI 1 emitter is refused, not read.
BOOST_AUTO_TEST_CASE(an_abi_1_emitter_is_skipped) {
  fs::path dir = fresh_dir("abi1_emitter");
  copy_into(dir, fixture("abi1_emitter"));
  auto registry = oi::PluginRegistry::discover({dir});
  BOOST_TEST(registry.plugins().empty());
  BOOST_REQUIRE(registry.skipped().size() == 1u);
  BOOST_TEST((registry.skipped()[0].reason == SkipReason::InitFailed));
  BOOST_TEST(registry.skipped()[0].detail.find("emitter plugins need plugin ABI 2") !=
             std::string::npos);
}

namespace {
std::vector<std::string> g_logged;
void record_log(const oi_host_api*, uint32_t level, const char* message) {
  g_logged.push_back(std::to_string(level) + " " + message);
}
}  // namespace

// oi::abi::log (plugin_abi.hpp) calls oi_host_api.log only on a host of ABI 2 or later.
BOOST_AUTO_TEST_CASE(the_log_helper_uses_the_host_log_only_where_the_host_has_one) {
  oi_host_api v2{};
  v2.struct_size = sizeof(v2);
  v2.abi_version = 2;
  v2.log = record_log;
  g_logged.clear();
  oi::abi::log(&v2, OI_LOG_WARNING, "careful");
  BOOST_TEST(g_logged == std::vector<std::string>{"2 careful"}, boost::test_tools::per_element());
  oi_host_api v1 = v2;
  v1.abi_version = 1;  // a v1 host has no log even if the bytes are there: stderr instead
  oi::abi::log(&v1, OI_LOG_DEBUG, "dropped");
  oi_host_api small = v2;
  small.struct_size = offsetof(oi_host_api, log);  // too small to hold it
  oi::abi::log(&small, OI_LOG_DEBUG, "dropped");
  BOOST_TEST(g_logged.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_missing_backend_is_an_environment_error_listing_what_was_found) {
  auto registry = oi::PluginRegistry::discover({mixed_dir()});
  try {
    registry.backend("vulkan");
    BOOST_FAIL("no error");
  } catch (const oi::Error& e) {
    BOOST_TEST((e.kind() == oi::ErrorKind::Environment));
    BOOST_TEST(std::string(e.what()) == "backend 'vulkan' is not available");
    BOOST_TEST(e.context().find("backends found: legacy") != std::string::npos);
    BOOST_TEST(e.context().find("init failed (no widget device found)") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(buffer_transfers_outside_a_buffer_are_errors) {
  auto registry = oi::PluginRegistry::discover({cpu_plugin_dir()});
  auto cpu = registry.backend("cpu");
  auto buf = cpu->alloc(8);
  std::byte data[16]{};
  BOOST_CHECK_THROW(cpu->upload(*buf, 0, data), oi::Error);
  BOOST_CHECK_THROW(cpu->download(*buf, 4, std::span(data, 8)), oi::Error);
  BOOST_CHECK_NO_THROW(cpu->download(*buf, 4, std::span(data, 4)));
}

BOOST_AUTO_TEST_CASE(a_tensor_that_overruns_its_buffer_is_refused_before_the_kernel_runs) {
  auto registry = oi::PluginRegistry::discover({cpu_plugin_dir()});
  auto cpu = registry.backend("cpu");
  const oi::DType i8 = oi::DType::i8;
  const oi::Kernel* mm =
      cpu->find_kernel("matmul", std::vector{i8, i8}, i8, oi::KernelMode::Normal);
  BOOST_REQUIRE(mm);
  std::vector<uint64_t> dims{8, 8};  // 64 bytes each
  auto small = cpu->alloc(16), big = cpu->alloc(64), out = cpu->alloc(64);
  oi::TensorArg ins[] = {{i8, dims, small.get(), 0}, {i8, dims, big.get(), 0}};
  oi::TensorArg outs[] = {{i8, dims, out.get(), 0}};
  try {
    cpu->run(*mm, ins, outs, {});
    BOOST_FAIL("no error");
  } catch (const oi::Error& e) {
    BOOST_TEST((e.kind() == oi::ErrorKind::Input));
    BOOST_TEST(std::string(e.what()) ==
               "input 0 (i8, 64 elements at byte 0) does not fit its buffer of 16 bytes");
  }
  // An offset that leaves too little room is refused the same way.
  oi::TensorArg shifted[] = {{i8, dims, big.get(), 0}, {i8, dims, big.get(), 8}};
  BOOST_CHECK_THROW(cpu->run(*mm, shifted, outs, {}), oi::Error);
  oi::TensorArg fits[] = {{i8, dims, big.get(), 0}, {i8, dims, big.get(), 0}};
  BOOST_CHECK_NO_THROW(cpu->run(*mm, fits, outs, {}));
}

BOOST_AUTO_TEST_CASE(search_path_puts_cli_dirs_first_then_the_environment_and_drops_repeats) {
  fs::path a = fresh_dir("path_a"), b = fresh_dir("path_b");
  std::string env = b.string() + ":" + a.string();
  setenv("OPENINFER_PLUGIN_PATH", env.c_str(), 1);
  auto dirs = oi::plugin_search_path({a.string()});
  unsetenv("OPENINFER_PLUGIN_PATH");
  BOOST_REQUIRE(dirs.size() >= 2u);
  BOOST_TEST(dirs[0] == fs::weakly_canonical(a));
  BOOST_TEST(dirs[1] == fs::weakly_canonical(b));
  BOOST_TEST(std::count(dirs.begin(), dirs.end(), fs::weakly_canonical(a)) == 1);
}
