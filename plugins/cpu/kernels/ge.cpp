// ge: elementwise a >= b -> bool; any comparison with NaN is false except ne (IEEE, ops.md).
// Integers compare in their dtype's signedness.
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Op {
  template <class F>
  bool fl(F a, F b) const {
    return a >= b;
  }
  bool in(int64_t a, int64_t b, [[maybe_unused]] const ElemIO& t) const {
    return !int_less(a, b, t);
  }
};

void register_ge(KernelList& list) {
  add_each(list, "ge", {kFloats, kSigned, kUnsigned}, 2, &generic_kernel<2, Op>, false, dt::BOOL);
}

const KernelRegistration registration(register_ge);

}  // namespace
}  // namespace oi::cpu
