// Products of a constant operand and a small one in generated C (f32), written for their
// shapes: y[r, c] = sum over k of W[r, k] X[c, k] (+ bias[r]), where W (the weights: conv's
// w, a matmul's constant A or B) is packed once per state into blocks of rows, each block
// [K][rows], and X (conv's patch columns, the activations of a matrix-vector product) has few
// columns C. The register tile is a block of W's rows (vectors) times a few columns of X
// (broadcast values), so every weight is read once per C columns and no accumulator leaves the
// registers during the K loop. x86-64 (GCC, Clang): AVX-512F and AVX2+FMA micro-kernels, those
// the plan's device allows, in functions with target attributes, picked at run time like the
// matmul's (oi_mm_isa); elsewhere and where the CPU has neither, portable loops over the same
// layout. Each output element sums its K products in k order (fused multiply-adds on x86),
// then adds the bias: within ops.md's matmul and ops-nn.md's conv tolerances.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "c_common.hpp"

namespace oi::c_emitter {

struct PanelProduct {
  uint64_t R = 0, C = 0, K = 0;
  // W: element (r, k) at w[r * w_rs + k * w_ks] (constant; packed at the first call).
  std::string w;
  uint64_t w_rs = 0, w_ks = 0;
  // Identical products applied `copies` times (conv's groups): copy j's W at w + j * w_copy,
  // packed at pp_w + j * PanelPlan::copy_floats.
  uint64_t copies = 1, w_copy = 0;
  // Weights that are one of `entries` entries of a constant table, chosen per call by the C
  // expression `entry` (a loop index: conv's w[b]): each entry packed at its first use into a
  // buffer of its own (entries <= 30; bits of the state flag). 1 and "0": constant weights.
  uint64_t entries = 1;
  std::string entry = "0";
  // X: element (c, k) at x[c * x_cs + k * x_ks]; y: (r, c) at y[r * y_rs + c * y_cs].
  uint64_t x_cs = 0, x_ks = 0, y_rs = 0, y_cs = 0;
  bool bias = false;  // the kernel function adds bias[r]
};

// Whether the product suits the panel kernels (few columns, enough rows for vectors).
bool panel_product_applies(uint64_t R, uint64_t C, uint64_t K);

// What a kernel body calls: the packed weights (packed at the first call), then for each use
// `call(copy, x, y, bias)` (C expressions) the computation. `emit_panel_setup` declares the
// locals pp_isa and pp_w (the packed copies) in the kernel body; each call to
// `emit_panel_call` computes one product.
struct PanelPlan {
  PanelProduct p;
  std::string fn;            // the functions' common prefix, kernel_ID_ppN
  std::string buffer;        // the state's scratch field holding the packed copies
  std::string flag;          // the state flag: packed
  uint64_t copy_floats = 0;  // one packed copy's floats (the largest of the layouts)
  int allowed = 0;           // micro-kernels emitted: bit 0 AVX2, bit 1 AVX-512
};
PanelPlan emit_panel_functions(KernelEnv& env, const PanelProduct& p);
void emit_panel_setup(std::ostringstream& c, const PanelPlan& plan, const std::string& indent);
void emit_panel_call(std::ostringstream& c, const PanelPlan& plan, const std::string& copy,
                     const std::string& x, const std::string& y, const std::string& bias,
                     const std::string& indent);

// The C support code the kernels share (packing, alignment), written once into each file.
extern const char* const kPanelHelpersC;

}  // namespace oi::c_emitter
