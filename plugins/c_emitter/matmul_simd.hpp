// The x86-64 SIMD matmul of generated C (f32): B packed into column panels, A into row panels,
// and a register-blocked micro-kernel written with <immintrin.h> intrinsics in functions built
// for AVX2+FMA or AVX-512F (target attributes), the one to run chosen at run time; the portable
// register blocks of ops_matmul.cpp run elsewhere (other compilers, CPUs, dtypes).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>

#include "c_common.hpp"

namespace oi::c_emitter {

// What the plan's device lets the generated matmul assume: which micro-kernels to emit (each
// still checked at run time) and the per-core caches the blocking is sized from.
struct MatmulDevice {
  bool avx2 = true;    // AVX2 + FMA
  bool avx512 = true;  // AVX-512F
  uint64_t l1d_bytes = 32 << 10, l2_bytes = 1 << 20, l3_bytes = 32 << 20;
};

// From the plan's `device` object (docs/synth.md): its `cpu` section (isa, simd as /proc/cpuinfo
// spells the features) and its `memory` cache sizes where present, docs/devices.md's keys. A CPU
// of another ISA, or an x86-64 one without avx2+fma (avx512f), gets no such micro-kernel; a GPU
// none; without a `cpu` section, with `builtin` true (the target's default description: no
// --device) or with no device, both are emitted and the CPU running the code picks.
MatmulDevice matmul_device(const boost::json::object* plan_device);

// One micro-kernel's blocking: MR x NR register tile; KC depth steps per packed panel (the
// B micro-panel KC x NR stays in L1), MC rows of A per packed block (in L2), NC columns per
// pass (the B block KC x NC in L3). MC and NC are multiples of MR and NR.
struct SimdBlocking {
  uint64_t mr, nr, kc, mc, nc;
};
SimdBlocking avx2_blocking(const MatmulDevice& d);
SimdBlocking avx512_blocking(const MatmulDevice& d);

// The C support code (packing, the micro-kernels `d` allows, blocked loops), written once into
// each generated file; empty where `d` allows none.
std::string matmul_simd_helpers_c(const MatmulDevice& d);

// acc[M, N] = a[M, K] x b[K, N] (f32 row-major arrays named by the C expressions a and b; `acc`
// declared by the caller, M, N, K > 0), where the SIMD path applies; `portable` writes the
// fallback (which must zero acc itself), run where no micro-kernel was emitted or the CPU has
// none. `b_constant`: b never changes, so it is packed once per state.
struct SimdProduct {
  std::string a, b;
  uint64_t M, K, N;
  bool b_constant;
};
bool simd_product_applies(const SimdProduct& p, const MatmulDevice& d);
void emit_simd_product(KernelEnv& env, std::ostringstream& c, const SimdProduct& p,
                       const MatmulDevice& d, const std::function<void()>& portable);

// acc[M, N] += a[M, K] x b[K, N] where the SIMD path applies, with packing buffers the
// generated code allocates per call (operands that change every call: conv's patch tiles);
// `portable` (accumulating into acc) runs where no kernel or no memory is had.
void emit_simd_product_unpacked(std::ostringstream& c, const SimdProduct& p, const MatmulDevice& d,
                                const std::function<void()>& portable);

// emit_product (c_ops.hpp) for the plan's device `d`: conv's patch-tile products.
struct ProductNames;
void emit_product(std::ostringstream& c, const ProductNames& names, uint64_t M,
                  const MatmulDevice& d);

}  // namespace oi::c_emitter
