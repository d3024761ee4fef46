// Internal to graph_to_dot: the edges that are not the source order. None constrains the layout.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dot_labels.hpp"
#include "openinfer/graph.hpp"

namespace oi::dot {

// A node's end of an edge, quoted, with a port where it is a row of a table node.
using EndFn = std::function<std::string(const Node&)>;

// "FROM -> TO [ATTRS];"
std::string edge(const std::string& from, const std::string& to, const std::string& attrs);

// yield -> each consumer's await, the consumer's closing yield -> entry's matching await
// (dashed purple, labelled with the variables).
void yield_edges(const Graph& graph, const EndFn& end, std::vector<std::string>& edges);
// Each dep of one node list: its nearest earlier `after` node -> its nearest later `before`
// node (dotted red).
void dep_edges(const std::vector<Node>& nodes, const EndFn& end, std::vector<std::string>& edges);
// From the last earlier writer of each value in the same block (source order), else from the
// variable's row in its memory table (a temporary: from its assign), to each node reading it.
void data_edges(const Graph& graph, const Labels& labels, const EndFn& end,
                std::vector<std::string>& edges);

}  // namespace oi::dot
