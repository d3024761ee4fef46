// not: bitwise complement at the dtype's width; logical for bool (ops.md).
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Not {
  int64_t in(int64_t a, const ElemIO& t) const { return t.is_bool ? a == 0 : ~a; }
};

void register_not(KernelList& list) {
  add_each(list, "not", {kSigned, kUnsigned, {dt::BOOL}}, 1, &generic_kernel<1, Not>, true);
}

const KernelRegistration registration(register_not);

}  // namespace
}  // namespace oi::cpu
