// abs: |a|; the most negative integer wraps to itself, unless acc= widens it first (ops.md).
#include <cmath>

#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct Abs {
  template <class F>
  F fl(F a) const {
    return std::fabs(a);
  }
  int64_t in(int64_t a, const ElemIO&) const { return a < 0 ? wsub(0, a) : a; }
};

void register_abs(KernelList& list) {
  const oi_kernel_fn fn = &generic_kernel<1, Abs>;
  add_each(list, "abs", {kFloats, kSigned}, 1, fn, true);
  for (uint32_t in : {dt::I1, dt::I2, dt::I4}) {
    for (uint32_t out : {dt::I8, dt::I16, dt::I32, dt::I64}) {
      list.add("abs", {in}, out, OI_KERNEL_MODE_ACCUMULATE, fn);
    }
  }
  const uint32_t wide[][2] = {{dt::I8, dt::I16},  {dt::I8, dt::I32},  {dt::I8, dt::I64},
                              {dt::I16, dt::I32}, {dt::I16, dt::I64}, {dt::I32, dt::I64}};
  for (const auto& p : wide) list.add("abs", {p[0]}, p[1], OI_KERNEL_MODE_ACCUMULATE, fn);
}

const KernelRegistration registration(register_abs);

}  // namespace
}  // namespace oi::cpu
