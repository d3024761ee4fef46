// libFuzzer entry point for the DSL: any text must either parse or be rejected with oi::Error,
// never crash, hang or overflow the stack. Whatever parses must survive a JSON round trip
// unchanged, and go through level-1 validation and level-2 validation against a small model
// (fuzz_support.hpp) with every problem reported as a message, never a crash.
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
    graph = oi::Graph::parse(text, "fuzz.oi");
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
    return 0;
  }
  (void)graph.warnings();
  (void)graph.node_count();
  std::string json = oi::graph_to_json(graph);
  oi::Graph reread = oi::graph_from_json(json, "fuzz.json");
  if (oi::graph_to_json(reread) != json || !(reread == graph)) __builtin_trap();

  const oi::Diagnostics level1 = oi::validate_graph(graph);
  (void)level1.format();
  const oi::Diagnostics level2 =
      oi::validate_against_model(graph, oi::OpCatalog::builtin(), oi_fuzz::small_model());
  (void)level2.format();
  // Level 2 includes level 1: a graph level 1 rejects cannot pass level 2.
  if (!level1.ok() && level2.ok()) __builtin_trap();
  return 0;
}
