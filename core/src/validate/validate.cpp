// The two validation levels: every check runs and reports; messages come back sorted.
#include "openinfer/validate.hpp"

#include "check_model.hpp"
#include "graph_index.hpp"

namespace oi {
namespace {

void run_level1(const validation::GraphIndex& index) {
  validation::check_declarations(index);
  validation::check_control_flow(index);
  validation::check_names(index);
  validation::check_nodes(index);
  validation::check_concurrency(index);
  validation::check_scopes(index);
}

}  // namespace

Diagnostics validate_graph(const Graph& graph, const OpCatalog& catalog) {
  Diagnostics diag;
  validation::GraphIndex index(graph, catalog, diag);
  run_level1(index);
  validation::name_scopes(graph, diag);
  diag.sort();
  return diag;
}

Diagnostics validate_against_model(const Graph& graph, const OpCatalog& catalog,
                                   const Model& model) {
  Diagnostics diag;
  validation::GraphIndex index(graph, catalog, diag);
  run_level1(index);
  validation::check_against_model(index, model);
  validation::name_scopes(graph, diag);
  diag.sort();
  return diag;
}

}  // namespace oi
