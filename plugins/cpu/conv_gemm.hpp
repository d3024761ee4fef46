// Stride-1 float convolution without a column matrix: the input of each (image, group) is
// copied once into a zero-padded buffer, and each kernel tap is one OpenBLAS gemm that reads
// that buffer shifted by the tap's offset and accumulates into a "wide" output whose rows have
// the padded width (the extra columns are dropped at the end). Dot products accumulate in the
// compute type, over the taps in order. Used by conv_float.hpp for ResNet-style 3x3 convs.
#pragma once

#include "conv_geometry.hpp"

namespace oi::cpu {

// y [N, M, P] = conv(x, w) for C = float or double. Returns false, writing nothing, when the
// conv is not stride 1, has one tap, too few channels per group, too little work, or OpenBLAS
// is not linked in: the caller then takes the im2col path.
template <class C>
bool stride1_conv_gemm(const C* x, const C* w, C* y, const ConvShape& s);

}  // namespace oi::cpu
