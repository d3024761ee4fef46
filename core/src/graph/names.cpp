// Names of the IR's enums, as written in the DSL and the JSON schema.
#include <array>

#include "openinfer/graph.hpp"

namespace oi {

namespace {

constexpr std::array<std::string_view, 4> kMemoryKindNames = {"dynamic", "volatile", "constant",
                                                              "persistent"};

constexpr std::array<std::string_view, 15> kNodeKindNames = {"Assign",
                                                             "Op",
                                                             "Transfer",
                                                             "CacheRead",
                                                             "CacheWrite",
                                                             "CacheIncrement",
                                                             "CacheDecrement",
                                                             "CacheReset",
                                                             "Loop",
                                                             "Branch",
                                                             "Return",
                                                             "Barrier",
                                                             "Dep",
                                                             "Yield",
                                                             "Await"};

constexpr std::array<std::string_view, 7> kValueKindNames = {"int",   "float", "bool",    "string",
                                                             "dtype", "ident", "int_list"};

}  // namespace

std::string_view memory_kind_name(MemoryKind kind) {
  return kMemoryKindNames[static_cast<size_t>(kind)];
}

std::optional<MemoryKind> memory_kind_from_name(std::string_view name) {
  for (size_t i = 0; i < kMemoryKindNames.size(); ++i) {
    if (kMemoryKindNames[i] == name) return static_cast<MemoryKind>(i);
  }
  return std::nullopt;
}

std::string_view node_kind_name(NodeKind kind) {
  return kNodeKindNames[static_cast<size_t>(kind)];
}

std::optional<NodeKind> node_kind_from_name(std::string_view name) {
  for (size_t i = 0; i < kNodeKindNames.size(); ++i) {
    if (kNodeKindNames[i] == name) return static_cast<NodeKind>(i);
  }
  return std::nullopt;
}

std::string_view node_keyword(const Node& node) {
  static constexpr std::array<std::string_view, 15> kKeywords{"assign",
                                                              "",
                                                              "transfer",
                                                              "cache.read",
                                                              "cache.write",
                                                              "cache.increment",
                                                              "cache.decrement",
                                                              "cache.reset",
                                                              "loop",
                                                              "branch",
                                                              "return",
                                                              "barrier",
                                                              "dep",
                                                              "yield",
                                                              "await"};
  static_assert(kKeywords.size() == kNodeKindNames.size());
  if (node.kind == NodeKind::Op) return node.op;
  return kKeywords[static_cast<size_t>(node.kind)];
}

std::string_view value_kind_name(Value::Kind kind) {
  return kValueKindNames[static_cast<size_t>(kind)];
}

}  // namespace oi
