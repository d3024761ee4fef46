// and: bitwise on the two's-complement bits at the dtype's width; logical for bool (ops.md).
// Values are sign- or zero-extended to 64 bits, and the store keeps the dtype's low bits.
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Op {
  int64_t in(int64_t a, int64_t b, const ElemIO& t) const {
    if (t.is_bool) return (a != 0) && (b != 0);
    return a & b;
  }
};

void register_and(KernelList& list) {
  add_each(list, "and", {kSigned, kUnsigned, {dt::BOOL}}, 2, &generic_kernel<2, Op>, true);
}

const KernelRegistration registration(register_and);

}  // namespace
}  // namespace oi::cpu
