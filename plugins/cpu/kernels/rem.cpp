// rem: a - trunc(a / b) * b for integers, the sign of the dividend; a zero divisor gives 0.
#include "../generic_elementwise.hpp"
#include "../int_division.hpp"

namespace oi::cpu {
namespace {

struct Rem {
  int64_t in(int64_t a, int64_t b, const ElemIO& t) const { return b == 0 ? 0 : int_rem(a, b, t); }
};

void register_rem(KernelList& list) {
  add_each(list, "rem",
           {{dt::I4, dt::I8, dt::I16, dt::I32, dt::I64, dt::U4, dt::U8, dt::U16, dt::U32, dt::U64}},
           2, &generic_kernel<2, Rem>, true);
}

const KernelRegistration registration(register_rem);

}  // namespace
}  // namespace oi::cpu
