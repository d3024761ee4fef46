// Internal to the validator: the level 2 checks against a model package.
#pragma once

#include "graph_index.hpp"

namespace oi {
class Model;
}

namespace oi::validation {

void check_against_model(const GraphIndex& index, const Model& model);

}  // namespace oi::validation
