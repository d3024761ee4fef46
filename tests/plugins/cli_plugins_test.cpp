#define BOOST_TEST_MODULE plugins_cli
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <string>

#include "plugin_test_support.hpp"

using namespace plugin_test;

namespace {

struct Result {
  int exit_code;
  std::string output;
};

Result run_cli(const std::string& args) {
  std::string command = std::string(OPENINFER_CLI) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  BOOST_REQUIRE(pipe);
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  int status = pclose(pipe);
  return {WEXITSTATUS(status), output};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(lists_loaded_plugins_and_skipped_files_with_reasons) {
  fs::path dir = fresh_dir("cli");
  copy_into(dir, fixture("softplus_kernels"));
  copy_into(dir, fixture("too_new_abi"));
  copy_into(dir, fixture("no_entry_point"));
  write_text(dir / "notes.txt", "hello\n");
  Result r = run_cli("plugins --plugin-dir " + dir.string() + " --plugin-dir " +
                     cpu_plugin_dir().string());
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST_MESSAGE(r.output);
  fs::path cpu_file = fs::weakly_canonical(cpu_plugin_dir() / "libopeninfer_cpu.so");
  BOOST_TEST(contains(r.output, "backend cpu 0.1.0 (plugin ABI 3) " + cpu_file.string()));
  BOOST_TEST(contains(r.output, "  flushes subnormals: no"));
  BOOST_TEST(contains(r.output, " (op, dtype, mode)"));
  BOOST_TEST(contains(r.output, "kernels softplus 1.0.0 (plugin ABI 3) "));
  BOOST_TEST(contains(r.output, "  extends backend: cpu\n  kernels: 3 (op, dtype, mode)"));
  BOOST_TEST(contains(r.output, "libfixture_too_new_abi.so: ABI too new (plugin ABI 4"));
  BOOST_TEST(contains(r.output, "libfixture_no_entry_point.so: missing entry point"));
  BOOST_TEST(contains(r.output, "notes.txt: not a plugin"));
}

// Every plugin this build makes loads from the build's plugin directory: a shared library with
// an undefined symbol is only "skipped" at run time (the GLSL emitter once lost a symbol the
// Vulkan kernels it links gained, and `synth --target glsl` said "no emitter").
BOOST_AUTO_TEST_CASE(every_built_plugin_loads) {
  Result r = run_cli("plugins");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(!contains(r.output, "skipped "), r.output);
  BOOST_TEST(contains(r.output, "backend cpu "), r.output);
}

BOOST_AUTO_TEST_CASE(help_exits_zero) {
  Result r = run_cli("plugins --help");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(contains(r.output, "--plugin-dir"));
}

BOOST_AUTO_TEST_CASE(an_unknown_option_is_a_usage_error) {
  Result r = run_cli("plugins --bogus");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.output, "error: "));
}
