// is_neg: elementwise -> bool, a < 0: false for -0.0, NaN and unsigned values (ops.md).
#include <cmath>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Op {
  template <class F>
  bool fl(F a) const {
    return a < F{0};
  }
  bool in(int64_t a, const ElemIO& t) const { return t.is_signed && a < 0; }
};

void register_is_neg(KernelList& list) {
  add_each(list, "is_neg", {kFloats, kSigned, {dt::U8, dt::U16, dt::U32, dt::U64}}, 1,
           &generic_kernel<1, Op>, false, dt::BOOL);
}

const KernelRegistration registration(register_is_neg);

}  // namespace
}  // namespace oi::cpu
