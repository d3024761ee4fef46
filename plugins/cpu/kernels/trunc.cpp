// trunc: toward zero, as in C (ops.md). Computed in f32 (f64), then rounded once to a narrow dtype.
#include <cmath>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Op {
  template <class F>
  F fl(F a) const {
    return std::trunc(a);
  }
};

void register_trunc(KernelList& list) {
  add_each(list, "trunc", {kFloats}, 1, &generic_kernel<1, Op>, true);
}

const KernelRegistration registration(register_trunc);

}  // namespace
}  // namespace oi::cpu
