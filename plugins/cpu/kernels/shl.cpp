// shl: shift left by `bits` (0 <= bits < width, shift_count.hpp); wraps at the width.
#include "../generic_elementwise.hpp"
#include "../shift_count.hpp"

namespace oi::cpu {
namespace {

struct Shl {
  int64_t bits;
  static Shl from(const oi_kernel_call& call) { return {checked_shift_bits(call, "shl")}; }
  int64_t in(int64_t a, const ElemIO&) const {
    return static_cast<int64_t>(static_cast<uint64_t>(a) << bits);
  }
};

void register_shl(KernelList& list) {
  add_each(list, "shl",
           {{dt::I2, dt::I4, dt::I8, dt::I16, dt::I32, dt::I64, dt::U2, dt::U4, dt::U8, dt::U16,
             dt::U32, dt::U64}},
           1, &generic_kernel<1, Shl>, true);
}

const KernelRegistration registration(register_shl);

}  // namespace
}  // namespace oi::cpu
