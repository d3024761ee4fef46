// The fast conv paths of f32, f16, bf16 and f8 (computing in f32): shaders/conv_depthwise.comp
// where each output channel reads one input channel, shaders/conv_gemm.comp (implicit GEMM)
// for the rest. spatial_ops.cpp's conv tries them first and keeps shaders/spatial.comp for
// what they leave (f64, i8/u8, acc=, sizes past one dispatch's grid).
#pragma once

#include <cstdint>

#include "../kernel_registry.hpp"

namespace oi::vulkan {

// A conv call's geometry, 1-D as 2-D with H = 1; offsets in elements of the tensors' dtype.
struct ConvShape {
  uint32_t n, c, h, w, oc, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, group;
  uint32_t x0, w0, b0, y0;
  bool bias;
  uint32_t dtype;  // x's, w's, b's and y's
};

// Records the conv on a fast path and returns true, or returns false (nothing recorded) where
// none applies. OPENINFER_VULKAN_CONV_PATH=general forces spatial.comp, =gemm the implicit
// GEMM wherever it applies (depthwise convs too); OPENINFER_VULKAN_CONV_TILE=BM,BN,BK,TM,TN,KS
// forces the GEMM's tile (bad values are an error naming the variable).
bool run_conv_fast(const oi_kernel_call& call, const ConvShape& s);

}  // namespace oi::vulkan
