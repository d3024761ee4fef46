// popcount: the number of 1 bits at the dtype's own width, as u8 (i8 -1 -> 8, i4 -1 -> 4).
#include <bit>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Popcount {
  int64_t in(int64_t a, const ElemIO& t) const {
    uint64_t v = static_cast<uint64_t>(a);
    if (t.bits < 64) v &= (uint64_t{1} << t.bits) - 1;
    return std::popcount(v);
  }
};

void register_popcount(KernelList& list) {
  add_each(list, "popcount",
           {{dt::I2, dt::I4, dt::I8, dt::I16, dt::I32, dt::I64, dt::U2, dt::U4, dt::U8, dt::U16,
             dt::U32, dt::U64}},
           1, &generic_kernel<1, Popcount>, false, dt::U8);
}

const KernelRegistration registration(register_popcount);

}  // namespace
}  // namespace oi::cpu
