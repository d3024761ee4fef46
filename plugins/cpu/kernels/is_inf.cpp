// is_inf: elementwise -> bool, true for both infinities (ops.md).
#include <cmath>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Op {
  template <class F>
  bool fl(F a) const {
    return std::isinf(a);
  }
};

void register_is_inf(KernelList& list) {
  add_each(list, "is_inf", {kFloats}, 1, &generic_kernel<1, Op>, false, dt::BOOL);
}

const KernelRegistration registration(register_is_inf);

}  // namespace
}  // namespace oi::cpu
