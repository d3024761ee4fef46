// Static validation of a graph (docs/validation.md). Level 1 needs only the graph and the op
// catalog; level 2 also checks the graph against a model package. Every problem is reported,
// each with the source location it points at.
#pragma once

#include <string>
#include <vector>

#include "openinfer/graph.hpp"
#include "openinfer/op_catalog.hpp"

namespace oi {

class Model;

enum class Severity { Error, Warning };

struct ValidationMessage {
  Severity severity = Severity::Error;
  std::string message;
  SourceLocation loc;
};

// "FILE:LINE:COL: error: MESSAGE" ("FILE: warning: ..." without a line).
std::string format_message(const ValidationMessage& m);

class Diagnostics {
 public:
  void error(const SourceLocation& loc, std::string message);
  void warning(const SourceLocation& loc, std::string message);

  // Messages ordered by origin, line, column (stable: same place keeps report order).
  const std::vector<ValidationMessage>& messages() const { return messages_; }
  std::vector<ValidationMessage>& messages() { return messages_; }
  size_t error_count() const;
  size_t warning_count() const;
  bool ok() const { return error_count() == 0; }
  // `--strict`: every warning becomes an error.
  void promote_warnings();
  void sort();
  // One format_message line per message, each ending in '\n'.
  std::string format() const;

 private:
  std::vector<ValidationMessage> messages_;
};

// Level 1: names, control flow, memory rules, op signatures and settings, yield/await and data
// races (dsl.md). Needs no model.
Diagnostics validate_graph(const Graph& graph, const OpCatalog& catalog = OpCatalog::builtin());

// Level 2: level 1 plus size variables, links to model entries, prefix-table entries for constant
// loop bounds, op dtypes and output dtypes, shapes, and table access index counts.
Diagnostics validate_against_model(const Graph& graph, const OpCatalog& catalog,
                                   const Model& model);

}  // namespace oi
