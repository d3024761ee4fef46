// floor_div: floor(a / b) for integers (-7 floor_div 2 = -4); a zero divisor gives
// div_by_zero_mask when given, else 0 (ops.md).
#include "../generic_elementwise.hpp"
#include "../int_division.hpp"

namespace oi::cpu {
namespace {

struct FloorDiv {
  DivMask mask;
  static FloorDiv from(const oi_kernel_call& call) { return {DivMask::read(call, true)}; }
  int64_t in(int64_t a, int64_t b, const ElemIO& t) const {
    if (b == 0) return mask.given ? mask.i : 0;
    return int_floor_div(a, b, t);
  }
};

void register_floor_div(KernelList& list) {
  add_each(list, "floor_div",
           {{dt::I4, dt::I8, dt::I16, dt::I32, dt::I64, dt::U4, dt::U8, dt::U16, dt::U32, dt::U64}},
           2, &generic_kernel<2, FloorDiv>, true);
}

const KernelRegistration registration(register_floor_div);

}  // namespace
}  // namespace oi::cpu
