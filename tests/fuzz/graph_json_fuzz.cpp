// libFuzzer entry point for the graph JSON loader: any bytes must either load or be rejected
// with oi::Error. A graph that loads must serialize, that text must read back to itself, and
// level-1 validation must report on it without crashing (JSON can express graphs the DSL
// parser never builds).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"
#include "openinfer/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  oi::Graph graph;
  try {
    graph = oi::graph_from_json(text, "fuzz.json");
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
    return 0;
  }
  (void)graph.node_count();
  std::string json = oi::graph_to_json(graph);
  oi::Graph reread = oi::graph_from_json(json, "fuzz.json");
  if (oi::graph_to_json(reread) != json) __builtin_trap();
  (void)oi::validate_graph(graph).format();
  return 0;
}
