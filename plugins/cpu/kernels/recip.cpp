// recip: 1 / a for floats; a zero gives div_by_zero_mask when given, else IEEE +-inf.
#include "../generic_elementwise.hpp"
#include "../int_division.hpp"

namespace oi::cpu {
namespace {

struct Recip {
  DivMask mask;
  static Recip from(const oi_kernel_call& call) { return {DivMask::read(call, false)}; }
  template <class F>
  F fl(F a) const {
    if (a == F{0} && mask.given) return static_cast<F>(mask.f);
    return F{1} / a;
  }
};

void register_recip(KernelList& list) {
  add_each(list, "recip", {kFloats}, 1, &generic_kernel<1, Recip>, true);
}

const KernelRegistration registration(register_recip);

}  // namespace
}  // namespace oi::cpu
