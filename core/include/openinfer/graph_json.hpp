// JSON serialization of the graph IR (schema: docs/graph-json.md).
#pragma once

#include <string>
#include <string_view>

#include "openinfer/graph.hpp"

namespace oi {

// The newest version this library reads and writes. Version 2 added scopes (`scopes` of a
// block, `scope` of a node); a graph without scopes is written as version 1, so that readers
// of version 1 keep reading it. Both versions are read.
inline constexpr int kGraphJsonVersion = 2;

struct GraphJsonOptions {
  // Write each construct's "loc" (line, column). Without them two graphs built differently
  // (parsed, built in code) serialize identically when their structure is the same.
  bool locations = true;
};

// Pretty-printed JSON with a trailing newline. Deterministic: serializing a graph read back by
// graph_from_json gives identical text.
std::string graph_to_json(const Graph& graph, const GraphJsonOptions& options = {});

// Reads a graph written by graph_to_json. Malformed JSON or a schema violation throws
// oi::Error(ErrorKind::Input) naming the JSON path of the problem (`blocks[0].nodes[3].kind`);
// `origin` (the file name) is the error's `where` and the graph's origin.
Graph graph_from_json(std::string_view text, std::string_view origin = "<json>");

}  // namespace oi
