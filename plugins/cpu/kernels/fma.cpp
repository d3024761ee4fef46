// fma: a * b + c with one rounding in the compute precision (std::fma in f32, or f64), then the
// one rounding to f8/bf16/f16 (ops.md).
#include <cmath>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Fma {
  template <class F>
  F fl(F a, F b, F c) const {
    return std::fma(a, b, c);
  }
};

void register_fma(KernelList& list) {
  add_each(list, "fma", {kFloats}, 3, &generic_kernel<3, Fma>, true);
}

const KernelRegistration registration(register_fma);

}  // namespace
}  // namespace oi::cpu
