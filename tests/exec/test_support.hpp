// Shared helpers of the executor tests: the CPU backend of the build tree, models built in
// memory, and graphs parsed from text.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

namespace exec_test {

inline std::shared_ptr<oi::Backend> cpu() {
  static oi::PluginRegistry registry = oi::PluginRegistry::discover({OPENINFER_TEST_PLUGIN_DIR});
  static std::shared_ptr<oi::Backend> backend = registry.backend("cpu");
  return backend;
}

inline oi::Model model(const oi::ModelWriter& writer) {
  return oi::Model::from_bytes(writer.to_bytes(), "test.oinf");
}

// OPENINFER_DUMP_GRAPHS=DIR: every graph a test simulates is also written there with its model
// (G.oi and G.oinf, G a hash of both), so tests/synth/exec_graphs.py can run the same graphs
// through the synthesis targets.
inline void dump_graph(const oi::ModelWriter& writer, const std::string& graph_text) {
  const char* dir = std::getenv("OPENINFER_DUMP_GRAPHS");
  if (dir == nullptr || *dir == '\0') return;
  const auto bytes = writer.to_bytes();
  const std::string model_text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const size_t h = std::hash<std::string>{}(graph_text + '\0' + model_text);
  const std::filesystem::path base = std::filesystem::path(dir) / std::to_string(h);
  std::filesystem::create_directories(dir);
  std::ofstream(base.string() + ".oi", std::ios::binary) << graph_text;
  std::ofstream(base.string() + ".oinf", std::ios::binary) << model_text;
}

// `graph_text` parsed (and dumped with the model of `writer`, above).
inline oi::Graph parse_graph(const oi::ModelWriter& writer, const std::string& graph_text) {
  dump_graph(writer, graph_text);
  return oi::Graph::parse(graph_text, "test.oi");
}

// A simulator over `graph_text`, which must validate against the model.
inline oi::Simulator simulate(const oi::ModelWriter& writer, const std::string& graph_text) {
  return oi::Simulator(model(writer), parse_graph(writer, graph_text), cpu());
}

// Runs `fn` and returns the oi::Error message it throws (with its context), failing otherwise.
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const oi::Error& e) {
    return std::string(e.what()) + "\n" + e.context();
  }
  BOOST_FAIL("expected an oi::Error");
  return {};
}

inline bool contains(const std::string& text, const std::string& part) {
  bool found = text.find(part) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("'" << part << "' not in: " << text);
  return found;
}

template <class T>
std::vector<T> values(const oi::Executor& exec, const std::string& name) {
  return exec.fetch<T>(name).data;
}

}  // namespace exec_test
