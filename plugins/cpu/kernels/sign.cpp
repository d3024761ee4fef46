// sign: -1, 0 or 1 as i8; NaN and -0.0 give 0 (ops.md).
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Sign {
  template <class F>
  int64_t fl(F a) const {
    return a > F{0} ? 1 : (a < F{0} ? -1 : 0);
  }
  int64_t in(int64_t a, const ElemIO&) const { return a > 0 ? 1 : (a < 0 ? -1 : 0); }
};

void register_sign(KernelList& list) {
  add_each(list, "sign", {kFloats, kSigned}, 1, &generic_kernel<1, Sign>, false, dt::I8);
}

const KernelRegistration registration(register_sign);

}  // namespace
}  // namespace oi::cpu
