// The math ops of the glsl emitter's own writers (ops_math.cpp), looked up by op name: the GLSL
// expression of one f32 element of a transcendental op, fused into elementwise chains like the
// arithmetic in shader_writer.cpp. Every other op (movement, conv, pools, row ops, attention,
// gather, matmul, reductions, ...) has no writer here: it runs the Vulkan backend's shaders
// (vulkan_kernels.hpp).
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "shader_common.hpp"

namespace oi::glsl {

// `args` are the locals of the op's inputs (f32); returns the expression of its result.
using MathFn = std::string (*)(ShaderBuilder& sb, const OpIn& op,
                               const std::vector<std::string>& args);

struct OpRegistry {
  std::map<std::string, MathFn> math;
};

const OpRegistry& op_registry();
std::string supported_ops();  // for error messages: every op the own writers handle

void register_math_ops(OpRegistry& r);

// GLSL of the f32 math functions (oi_exp, ... computed in f64), for ShaderBuilder::use_math on a
// device with fp64, and of math_f64.glsl's f64 functions (exp_f64, ...) for f64 values.
const std::string& math_helpers_glsl();
// GLSL of the same f32 functions computed in f32 arithmetic (math_f32.glsl), for a device
// without fp64 (after div_f32.glsl, which it uses).
const std::string& math32_helpers_glsl();
// GLSL of the f64 math functions (oi_exp_d, ...), after math_helpers_glsl().
const std::string& math64_helpers_glsl();

}  // namespace oi::glsl
