// neg: -a; the most negative integer wraps to itself (ops.md).
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Neg {
  template <class F>
  F fl(F a) const {
    return -a;
  }
  int64_t in(int64_t a, const ElemIO&) const { return wsub(0, a); }
};

void register_neg(KernelList& list) {
  add_each(list, "neg", {kFloats, kSigned}, 1, &generic_kernel<1, Neg>, true);
}

const KernelRegistration registration(register_neg);

}  // namespace
}  // namespace oi::cpu
