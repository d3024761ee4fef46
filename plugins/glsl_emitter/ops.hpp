// The op families of the glsl emitter, one per ops_*.cpp, looked up by op name:
//   - math: the GLSL expression of one f32 element of a transcendental op (fused into
//     elementwise kernels and epilogues like the arithmetic in shader_writer.cpp);
//   - single ops: the whole shader of a plan kernel of kind `op` (movement, conv, rows).
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
// Writes the shader of a kernel whose only op is `op`.
using OpShaderFn = KernelShader (*)(ShaderBuilder& sb, const OpIn& op);

struct OpRegistry {
  std::map<std::string, MathFn> math;
  std::map<std::string, OpShaderFn> ops;
};

const OpRegistry& op_registry();
std::string supported_ops();  // for error messages: every op some writer handles

// The families.
void register_math_ops(OpRegistry& r);
void register_movement_ops(OpRegistry& r);
void register_conv_ops(OpRegistry& r);
void register_row_ops(OpRegistry& r);
void register_attention_ops(OpRegistry& r);

// GLSL of the f32 math functions (oi_exp, ... computed in f64), for ShaderBuilder::use_math on a
// device with fp64, and of math_f64.glsl's f64 functions (exp_f64, ...) for f64 values.
const std::string& math_helpers_glsl();
// GLSL of the same f32 functions computed in f32 arithmetic (math_f32.glsl), for a device
// without fp64 (after div_f32.glsl, which it uses).
const std::string& math32_helpers_glsl();
// GLSL of the f64 math functions (oi_exp_d, ...), after math_helpers_glsl().
const std::string& math64_helpers_glsl();

}  // namespace oi::glsl
