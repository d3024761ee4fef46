// round: half to even (2.5 -> 2, -0.5 -> -0); std::nearbyint does this in the default
// rounding mode, which nothing changes (ops.md). Computed in f32 (f64), then rounded once to a
// narrow dtype.
#include <cmath>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Op {
  template <class F>
  F fl(F a) const {
    return std::nearbyint(a);
  }
};

void register_round(KernelList& list) {
  add_each(list, "round", {kFloats}, 1, &generic_kernel<1, Op>, true);
}

const KernelRegistration registration(register_round);

}  // namespace
}  // namespace oi::cpu
