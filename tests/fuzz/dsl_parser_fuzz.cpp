// libFuzzer entry point for the DSL parser: any text must either parse or be rejected with
// oi::Error, never crash, hang or overflow the stack. Whatever parses must also survive a JSON
// round trip unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  oi::Graph graph;
  try {
    graph = oi::Graph::parse(text, "fuzz.oi");
  } catch (const oi::Error& e) {
    if (std::string_view(e.what()).empty()) __builtin_trap();
    return 0;
  }
  (void)graph.warnings();
  (void)graph.node_count();
  std::string json = oi::graph_to_json(graph);
  oi::Graph reread = oi::graph_from_json(json, "fuzz.json");
  if (oi::graph_to_json(reread) != json || !(reread == graph)) __builtin_trap();
  return 0;
}
