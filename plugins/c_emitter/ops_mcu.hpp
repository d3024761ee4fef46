// Kernels of the freestanding profile (ops_mcu.cpp): register blocks over weights read in place,
// no packing and no scratch, for microcontrollers' scalar FPUs. The generated C uses OI_FMAF and
// OI_FMA, which the freestanding preamble defines (fmaf and fma where the FPU fuses).
#pragma once

#include <sstream>
#include <string>

#include "c_ops.hpp"
#include "window.hpp"

namespace oi::c_emitter {

// conv of x by w (+ b) into `out` (a pointer expression of the output's C type), any window,
// stride, padding, dilation and group: blocks of output channels by output columns.
void mcu_conv(std::ostringstream& c, const Window& g, const Value& x, const Value& w,
              const Value* b, uint64_t M, uint64_t group, const std::string& out);

// acc[M, N] = a[M, K] x b[K, N] (row-major; `acc` declared by the caller), each element summing
// its products in k order: blocks of rows by columns in registers.
void mcu_product(std::ostringstream& c, const ProductNames& names, uint64_t M);

}  // namespace oi::c_emitter
