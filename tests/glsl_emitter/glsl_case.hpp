// The harness of the glsl target tests: a Case (graph, model, inputs, steps, tolerance) is
// planned for devices/lavapipe.json, emitted, its shaders compiled with glslc, run by the
// manifest runner and compared with the simulator on the CPU backend. No Vulkan device: the
// test prints SKIPPED and exits 77. Shared by glsl_emitter_test.cpp and glsl_features_test.cpp.
#pragma once

#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/oinf_text.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"
#include "openinfer/synth.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace oi;

namespace glsl_test {

inline const PluginRegistry& registry() {
  static PluginRegistry r = PluginRegistry::discover({PLUGIN_DIR});
  return r;
}

// The CPU backend of the reference: the build's, or OPENINFER_TEST_CPU_PLUGIN_DIR's.
inline std::shared_ptr<Backend> cpu_backend() {
  const char* dir = std::getenv("OPENINFER_TEST_CPU_PLUGIN_DIR");
  static PluginRegistry r = PluginRegistry::discover({dir && *dir ? dir : PLUGIN_DIR});
  return r.backend("cpu");
}

inline DeviceArch lavapipe() {
  return DeviceArch::load(fs::path(OPENINFER_SOURCE_DIR) / "devices" / "lavapipe.json");
}

// The glsl target's built-in generic Vulkan 1.2 GPU, written out: no fp64 (the f32 math in f32
// arithmetic, math_f32.glsl), no fp16 storage.
inline DeviceArch generic_vulkan() {
  return DeviceArch::load(fs::path(OPENINFER_SOURCE_DIR) / "devices" / "generic_vulkan.json");
}

inline std::vector<EmittedFile> emit(const Plan& plan, const std::string& plan_json,
                                     const std::string& name = "model") {
  return registry().emitter("glsl")->emit(
      {plan_json, plan.device.to_json(), name, plan.model.origin(), {}});
}

inline int shell(const std::string& cmd, std::string* output = nullptr) {
  const std::string full = cmd + " > " + (output ? "glsl_cmd_out.txt" : "/dev/null") + " 2>&1";
  const int status = std::system(full.c_str());
  if (output) {
    std::ifstream in("glsl_cmd_out.txt");
    std::stringstream s;
    s << in.rdbuf();
    *output = s.str();
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct Case {
  std::string name;
  std::string source;
  std::function<void(ModelWriter&)> model;
  fs::path model_file;                   // instead of `model`: an existing package
  std::map<std::string, Tensor> inputs;  // inserted before every step
  // Or per step: step_inputs[K] inserted before step K (`--input NAME=FILE:NAME.{step}`).
  std::vector<std::map<std::string, Tensor>> step_inputs;
  int steps = 1;
  std::vector<std::string> fetch;
  bool tolerance = false;  // |got - want| <= atol + rtol |want| instead of bit-exact
  double atol = 1e-6, rtol = 1e-5;
  bool div_ulps = false;  // f32 within 2 ulp (div, ops-nn.md's elementwise math)
  // Non-empty: the runner must fail (exit 1) with this in its message, and the simulator too.
  std::string expect_error;
  // The device description planned for (devices/lavapipe.json when empty); the shaders still
  // run on the machine's Vulkan device (lavapipe).
  std::string device;
  // Non-empty: the plan's JSON as the emitter gets it (a plan fused by hand, which the planner
  // never produces), from the planner's.
  std::function<std::string(const std::string&)> plan_edit;
  // Values after the last step computed by the test itself, which the glsl program and the
  // simulator must both give.
  std::map<std::string, Tensor> want;
};

inline int64_t ulp_distance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(static_cast<int64_t>(ia) - ib);
}

inline void compare(const Case& c, const std::string& name, const Tensor& want, const Tensor& got) {
  BOOST_TEST_CONTEXT(c.name << ": " << name) {
    BOOST_REQUIRE(want.dtype() == got.dtype());
    BOOST_REQUIRE(want.shape() == got.shape());
    if (want.dtype() == DType::f64) {  // ops-nn.md's f64 tolerance, else bit-exact
      auto w = want.as<double>(), g = got.as<double>();
      int bad = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        const bool ok = std::isnan(w[i])              ? std::isnan(g[i])
                        : c.tolerance && w[i] == g[i] ? true  // infinities too
                        : c.tolerance ? std::fabs(g[i] - w[i]) <= 1e-12 + 1e-10 * std::fabs(w[i])
                                      : std::memcmp(&w[i], &g[i], 8) == 0;
        if (!ok && ++bad <= 5)
          BOOST_ERROR("element " << i << ": want " << w[i] << ", got " << g[i]);
      }
      BOOST_TEST(bad == 0);
      return;
    }
    if (want.dtype() != DType::f32) {
      BOOST_TEST(std::memcmp(want.bytes().data(), got.bytes().data(), want.nbytes()) == 0);
      return;
    }
    auto w = want.as<float>(), g = got.as<float>();
    int bad = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      bool ok;
      if (std::isnan(w[i]))
        ok = std::isnan(g[i]);
      else if (c.tolerance)
        ok = w[i] == g[i] || std::fabs(g[i] - w[i]) <= c.atol + c.rtol * std::fabs(w[i]);
      else if (c.div_ulps)
        ok = ulp_distance(w[i], g[i]) <= 2;
      else
        ok = std::memcmp(&w[i], &g[i], 4) == 0;
      if (!ok && ++bad <= 5) BOOST_ERROR("element " << i << ": want " << w[i] << ", got " << g[i]);
    }
    BOOST_TEST(bad == 0);
  }
}

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Synthesizes, emits, compiles the shaders, runs the manifest and compares with the simulator.
inline void run_case(const Case& c) {
  const fs::path dir = fs::path(TEST_WORK_DIR) / c.name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (c.model_file.empty()) {
    ModelWriter mw;
    c.model(mw);
    mw.write(dir / "model.oinf");
  } else {
    fs::copy_file(c.model_file, dir / "model.oinf");
  }
  const Model model = Model::open(dir / "model.oinf");
  const Graph graph = Graph::parse(c.source, c.name + ".oi");
  const DeviceArch arch = c.device.empty() ? lavapipe() : DeviceArch::load(c.device);
  const Plan plan = Synthesizer(arch).synthesize(model, graph);
  const auto files = emit(plan, c.plan_edit ? c.plan_edit(plan.to_json()) : plan.to_json());
  write_emitted_files(dir / "out", files);
  {
    // What the runner picks on lavapipe, each SPIR-V cached by its sources (spirv_cache.py).
    std::string log;
    BOOST_REQUIRE_MESSAGE(
        shell("/usr/bin/python3 " + std::string(OPENINFER_SOURCE_DIR) +
                  "/tests/synth/spirv_cache.py " + GLSLC + " " + (dir / "out").string() + " ieee",
              &log) == 0,
        "glslc: " << log);
  }
  std::string cmd = std::string(RUNNER) + " --manifest " + (dir / "out").string() + " --model " +
                    (dir / "model.oinf").string() + " --steps " + std::to_string(c.steps) +
                    " --save " + (dir / "got.oinf").string() + " --quiet";
  if (!c.inputs.empty()) {
    ModelWriter in;
    for (const auto& [n, t] : c.inputs) in.add_tensor(n, t);
    in.write(dir / "inputs.oinf");
    for (const auto& [n, t] : c.inputs)
      cmd += " --input " + n + "=" + (dir / "inputs.oinf").string();
  }
  if (!c.step_inputs.empty()) {
    ModelWriter in;
    for (size_t k = 0; k < c.step_inputs.size(); ++k)
      for (const auto& [n, t] : c.step_inputs[k]) in.add_tensor(n + "." + std::to_string(k), t);
    in.write(dir / "step_inputs.oinf");
    for (const auto& [n, t] : c.step_inputs.front())
      cmd += " --input '" + n + "=" + (dir / "step_inputs.oinf").string() + ":" + n + ".{step}'";
  }
  std::vector<std::string> fetch = c.fetch;
  if (fetch.empty()) {  // entry's return, as the manifest lists it
    const json::value m = json::parse(read_text(dir / "out" / "manifest.json"));
    for (const json::value& n : m.at("outputs").as_array()) fetch.emplace_back(n.as_string());
  }
  for (const std::string& f : fetch) cmd += " --fetch " + f;
  std::string log;
  const int rc = shell(cmd, &log);
  if (rc == 3 && log.find("no Vulkan") != std::string::npos) {
    std::cout << "SKIPPED: " << log;
    std::exit(77);
  }
  Simulator sim(model, graph, cpu_backend());
  Executor exec = sim.make_executor();
  if (!c.expect_error.empty()) {
    BOOST_TEST(rc == 1, c.name << ": runner exit " << rc << ": " << log);
    BOOST_TEST(log.find(c.expect_error) != std::string::npos, log);
    for (const auto& [n, t] : c.inputs) exec.insert(n, t);
    BOOST_CHECK_THROW(exec.step(), Error);
    return;
  }
  BOOST_REQUIRE_MESSAGE(rc == 0, c.name << ": runner exit " << rc << ": " << log);

  for (int s = 0; s < c.steps; ++s) {
    for (const auto& [n, t] : c.inputs) exec.insert(n, t);
    if (!c.step_inputs.empty())
      for (const auto& [n, t] : c.step_inputs.at(static_cast<size_t>(s))) exec.insert(n, t);
    exec.step();
  }
  const Model got = Model::open(dir / "got.oinf");
  for (const std::string& f : fetch) compare(c, f, exec.fetch(f), got.tensor(f));
  for (const auto& [n, t] : c.want) {
    compare(c, n + " (simulator, expected)", t, exec.fetch(n));
    compare(c, n + " (glsl, expected)", t, got.tensor(n));
  }
}

// A package of tests/synth/c (the C target's fixtures, in the OINF text form).
inline Model text_package(const std::string& file) {
  const fs::path p = fs::path(OPENINFER_SOURCE_DIR) / "tests" / "synth" / "c" / file;
  const ModelWriter w = parse_oinf_text(read_text(p), p.string());
  return Model::from_bytes(w.to_bytes(), p.string());
}

// The model of a tests/synth/c text package, written for the case.
inline std::function<void(ModelWriter&)> text_model(const std::string& file) {
  return [file](ModelWriter& w) {
    const Model m = text_package(file);
    for (const SizeVarEntry& v : m.sizevars()) w.add_sizevar(v.name, v.value);
    for (const TensorEntry& t : m.tensors())
      if (t.has_data)
        w.add_tensor(t.name, m.tensor(t));
      else
        w.add_declaration(t.name, t.dtype, t.dims);
  };
}

// Inputs `names` (none: every tensor of the package) of a tests/synth/c input package for
// `steps` steps: NAME.K where present (one tensor per step), else NAME for every step.
inline std::vector<std::map<std::string, Tensor>> text_inputs(const std::string& file,
                                                              std::vector<std::string> names,
                                                              int steps) {
  const Model m = text_package(file);
  if (names.empty())
    for (const TensorEntry& t : m.tensors()) {
      std::string n = t.name;
      if (const size_t dot = n.rfind('.'); dot != std::string::npos) n.resize(dot);
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  std::vector<std::map<std::string, Tensor>> out(static_cast<size_t>(steps));
  for (int k = 0; k < steps; ++k)
    for (const std::string& n : names) {
      const std::string per_step = n + "." + std::to_string(k);
      out[static_cast<size_t>(k)].emplace(
          n, m.find_tensor(per_step) ? m.tensor(per_step) : m.tensor(n));
    }
  return out;
}

// A graph of tests/synth/c (the C target's fixtures) as a case: its text model, every dynamic
// variable inserted from the input package (NAME.K per step where present), every returned
// value compared within (1e-5, 1e-4) (set `tolerance` false for bit-exact).
inline Case c_fixture(const std::string& name, const std::string& model, int steps,
                      const std::string& input = "") {
  const fs::path dir = fs::path(OPENINFER_SOURCE_DIR) / "tests/synth/c";
  Case c;
  c.name = "c_" + name;
  c.source = read_text(dir / (name + ".oi"));
  c.model = text_model(model);
  c.steps = steps;
  // The graph's dynamic variables, from its plan (the package may hold more).
  ModelWriter mw;
  c.model(mw);
  const Plan plan = Synthesizer(lavapipe())
                        .synthesize(Model::from_bytes(mw.to_bytes(), model),
                                    Graph::parse(c.source, name + ".oi"));
  std::vector<std::string> dynamic;
  const json::value plan_json = json::parse(plan.to_json());
  for (const json::value& v : plan_json.at("values").as_array())
    if (v.at("storage") == "dynamic") dynamic.emplace_back(v.at("name").as_string());
  c.step_inputs = text_inputs(input.empty() ? name + "_input.txt" : input, dynamic, steps);
  c.tolerance = true;
  c.atol = 1e-5;
  c.rtol = 1e-4;
  return c;
}

inline std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

// Multiples of 1/8 in [-limit/8, limit/8], stepping by `stride` eighths and wrapping: sums of
// their products (matmul, conv, sum) are multiples of 1/64 that f32 holds exactly below 2^18, so
// every summation order (OpenBLAS's kernel for this processor, a shader's loop, a subgroup tree)
// gives the same bits, and the comparison can be exact.
inline std::vector<float> eighths(size_t n, int limit, int stride, int offset = 0) {
  std::vector<float> v(n);
  const int span = 2 * limit + 1;
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((static_cast<int>(i) * stride + offset) % span - limit) / 8.0f;
  return v;
}

inline std::string emit_error(const std::string& source,
                              const std::function<void(ModelWriter&)>& model,
                              const DeviceArch& arch = lavapipe(),
                              const std::string& name = "model") {
  ModelWriter mw;
  model(mw);
  const Model m = Model::from_bytes(mw.to_bytes(), "m.oinf");
  const Plan plan = Synthesizer(arch).synthesize(m, Graph::parse(source, "bad.oi"));
  try {
    emit(plan, plan.to_json(), name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace glsl_test
