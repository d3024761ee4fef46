// shr: shift right by `bits`; arithmetic for signed dtypes (the loaded value is sign-extended),
// logical for unsigned ones (zero-extended) (ops.md).
#include "../generic_elementwise.hpp"
#include "../shift_count.hpp"

namespace oi::cpu {
namespace {

struct Shr {
  int64_t bits;
  static Shr from(const oi_kernel_call& call) { return {checked_shift_bits(call, "shr")}; }
  int64_t in(int64_t a, const ElemIO& t) const {
    if (t.is_signed) return a >> bits;  // C++20: arithmetic
    return static_cast<int64_t>(static_cast<uint64_t>(a) >> bits);
  }
};

void register_shr(KernelList& list) {
  add_each(list, "shr",
           {{dt::I2, dt::I4, dt::I8, dt::I16, dt::I32, dt::I64, dt::U2, dt::U4, dt::U8, dt::U16,
             dt::U32, dt::U64}},
           1, &generic_kernel<1, Shr>, true);
}

const KernelRegistration registration(register_shr);

}  // namespace
}  // namespace oi::cpu
