// ceil: toward +inf, as in C (ops.md). Computed in f32 (f64), then rounded once to a narrow dtype.
#include <cmath>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Op {
  template <class F>
  F fl(F a) const {
    return std::ceil(a);
  }
};

void register_ceil(KernelList& list) {
  add_each(list, "ceil", {kFloats}, 1, &generic_kernel<1, Op>, true);
}

const KernelRegistration registration(register_ceil);

}  // namespace
}  // namespace oi::cpu
