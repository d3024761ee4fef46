// Pictures of graphs and plans (docs/cli.md "openinfer graph dot", docs/synth.md "Pictures"):
// Graphviz DOT text of a graph, the same graph with a plan's fused kernels as coloured groups,
// and the plan's memory as SVG drawn directly (no Graphviz needed). Every writer is
// deterministic: the same input gives the same bytes, which the golden tests compare.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "openinfer/graph.hpp"

namespace oi {

class Model;
class Plan;

// A cluster around consecutive nodes of one node list (a fused kernel of a plan).
struct DotGroup {
  std::string label;
  std::string fill;  // "#rrggbb"
};

// What a caller adds to one node's picture.
struct DotNodeMark {
  std::string note;             // an extra, smaller last label line
  std::string fill;             // the node's background instead of its kind's
  std::optional<size_t> group;  // index into DotDecorations::groups
};

struct DotDecorations {
  std::string title;  // replaces the graph's file name as the picture's title
  std::vector<DotGroup> groups;
  std::map<const Node*, DotNodeMark> marks;  // keyed by nodes of the graph being drawn
};

struct DotOptions {
  bool data_edges = false;                      // an edge from each value's producer to its readers
  const Model* model = nullptr;                 // dims with the model's size variables resolved
  const DotDecorations* decorations = nullptr;  // plan groups and marks
};

// The graph as a Graphviz digraph: each block a cluster with its nodes in order, loops and
// scopes nested clusters, branches, yield/await and dep as edges of their own style, the memory
// sections as tables coloured by memory kind. The graph should have validated (names are not
// checked here).
std::string graph_to_dot(const Graph& graph, const DotOptions& options = {});

// The plan's graph with its kernels as coloured groups labelled with their kind.
std::string plan_to_dot(const Plan& plan);

// The plan's arena as SVG: offset against trace position, one rectangle per arena value and
// live range, the arena's size and the position holding the most bytes marked.
std::string plan_memory_svg(const Plan& plan);

}  // namespace oi
