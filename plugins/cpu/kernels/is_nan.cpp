// is_nan: elementwise -> bool, true iff a is NaN (ops.md).
#include <cmath>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Op {
  template <class F>
  bool fl(F a) const {
    return std::isnan(a);
  }
};

void register_is_nan(KernelList& list) {
  add_each(list, "is_nan", {kFloats}, 1, &generic_kernel<1, Op>, false, dt::BOOL);
}

const KernelRegistration registration(register_is_nan);

}  // namespace
}  // namespace oi::cpu
