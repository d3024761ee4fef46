// Output-shape rules of the network layers (conv, pools, batch_norm, attention, rope,
// dequantize): one small function per op, registered by ShapeRuleRegistry.
#pragma once
#include <utility>
#include <vector>

#include "openinfer/op_catalog.hpp"

namespace oi {

std::vector<std::pair<const char*, ShapeRuleFn>> nn_shape_rules();

}  // namespace oi
