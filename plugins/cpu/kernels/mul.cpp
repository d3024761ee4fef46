// mul: a * b; integers wrap, bool is logical and (ops.md).
#include "../binary_elementwise.hpp"
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct MulOp {
  static constexpr bool simd = true;
  static constexpr WrapOp wrap = WrapOp::Mul;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a && b;
    } else if constexpr (is_wrapping_int_v<T>) {
      return wrap_mul(a, b);
    } else {
      return a * b;
    }
  }
};

// f8, packed integers and bitset: the type-erased path.
struct MulGeneric {
  template <class F>
  F fl(F a, F b) const {
    return a * b;
  }
  int64_t in(int64_t a, int64_t b, const ElemIO&) const { return wmul(a, b); }
};

void register_mul(KernelList& list) {
  add_same_type_kernels<MulOp, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                        uint32_t, uint64_t, bool>(list, "mul");
  add_accumulate_kernels<MulOp>(list, "mul");
  const oi_kernel_fn generic = &generic_kernel<2, MulGeneric>;
  add_half_kernels(list, "mul", &half_binary_kernel<half::Arith::Mul>);
  add_each(list, "mul", {{dt::F8}, kPackedInts, {dt::BITSET}}, 2, generic, true);
  for_each_packed_accumulate_pair([&](uint32_t in, uint32_t out) {
    list.add("mul", {in, in}, out, OI_KERNEL_MODE_ACCUMULATE, generic);
  });
}

const KernelRegistration registration(register_mul);

}  // namespace
}  // namespace oi::cpu
