// --embed-weights for the glsl target: the model's tensors the plan reads, compiled into the
// host program as an OINF image (host/weights.cpp), so the program needs no --model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plan_input.hpp"

namespace oi::glsl {

// One tensor of the emit request (plugin ABI 3): the emitter never opens the model.
struct ModelTensor {
  std::string name;
  uint32_t dtype = 0;  // oi_dtype, the OINF tag
  std::vector<uint64_t> dims;
  std::string_view data;
};

// host/weights.cpp: the tensors a value of the plan links or a prefix table's @pattern names,
// with the plan's size variables, as the bytes of one OINF package.
std::string embedded_weights_source(const PlanIn& plan, const std::vector<ModelTensor>& tensors);

}  // namespace oi::glsl
