// 3x3 convolutions with stride 1 as Winograd's F(2x2, 3x3) in generated C (f32, AVX-512F):
// each 4x4 input tile d and 3x3 filter g become V = B^T d B and U = G g G^T (U once per state,
// per weight entry), the 16 positions of the tile are 16 products M = U V over the channels,
// and each 2x2 output tile is A^T M A plus the bias: 16 multiply-adds per tile and channel pair
// instead of 36. B and A hold 0 and +-1, G 0, 1 and +-1/2: the transforms add and subtract.
// The error stays within ops-nn.md's conv tolerance (docs/synth.md).
#pragma once

#include <functional>
#include <sstream>

#include "c_common.hpp"
#include "window.hpp"

namespace oi::c_emitter {

// Whether `g` (with M output channels, `group` groups) is a conv this path computes and the
// plan's device allows its AVX-512 kernels.
bool winograd_applies(KernelEnv& env, const Window& g, uint64_t M, uint64_t group);

// The conv's body: the Winograd path where the CPU running the code has AVX-512F, `fallback`
// elsewhere. w is a constant or an entry of a constant table (`entries` of them, the entry a
// call uses is the C expression `entry`).
void conv_winograd(KernelEnv& env, std::ostringstream& c, const Window& g, const Value& x,
                   const Value& w, const Value* b, uint64_t M, uint64_t entries,
                   const std::string& entry, const std::function<void()>& fallback);

}  // namespace oi::c_emitter
