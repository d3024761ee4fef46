// Synthesizer: validation against the model, then the planning passes in order.
#include <fstream>
#include <sstream>

#include "openinfer/error.hpp"
#include "openinfer/graph_json.hpp"
#include "openinfer/validate.hpp"
#include "plan_internal.hpp"

namespace oi {

Synthesizer Synthesizer::for_target(std::string_view target) {
  return Synthesizer(DeviceArch::for_target(target));
}

Plan Synthesizer::synthesize(const Model& model, const Graph& graph,
                             const OpCatalog& catalog) const {
  Diagnostics diag = validate_against_model(graph, catalog, model);
  if (!diag.ok())
    throw input_error("the graph does not validate against the model (" +
                          std::to_string(diag.error_count()) + " errors); nothing synthesized",
                      graph.origin)
        .with_context(diag.format());
  Plan plan(model);
  plan.device = arch_;
  auto own = std::make_shared<Graph>(graph);
  own->number_nodes();
  plan.graph = own;
  synth::Context c{*own, catalog, arch_, plan, {}, keep_};
  synth::resolve_values(c);
  synth::build_schedule(c);
  synth::plan_memory(c);
  return plan;
}

Plan Synthesizer::synthesize(const Model& model, const std::filesystem::path& graph_json,
                             const OpCatalog& catalog) const {
  std::ifstream in(graph_json, std::ios::binary);
  if (!in) throw input_error("cannot open graph JSON", graph_json.string());
  std::ostringstream text;
  text << in.rdbuf();
  return synthesize(model, graph_from_json(text.str(), graph_json.string()), catalog);
}

}  // namespace oi
