// sub: a - b; integers wrap (ops.md). No bool kernel: the catalog has none.
#include "../binary_elementwise.hpp"
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

struct SubOp {
  static constexpr bool simd = true;
  static constexpr WrapOp wrap = WrapOp::Sub;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (is_wrapping_int_v<T>) {
      return wrap_sub(a, b);
    } else {
      return a - b;
    }
  }
};

// f8, packed integers: the type-erased path.
struct SubGeneric {
  template <class F>
  F fl(F a, F b) const {
    return a - b;
  }
  int64_t in(int64_t a, int64_t b, const ElemIO&) const { return wsub(a, b); }
};

void register_sub(KernelList& list) {
  add_same_type_kernels<SubOp, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                        uint32_t, uint64_t>(list, "sub");
  add_accumulate_kernels<SubOp>(list, "sub");
  const oi_kernel_fn generic = &generic_kernel<2, SubGeneric>;
  add_half_kernels(list, "sub", &half_binary_kernel<half::Arith::Sub>);
  add_each(list, "sub", {{dt::F8}, kPackedInts}, 2, generic, true);
  for_each_packed_accumulate_pair([&](uint32_t in, uint32_t out) {
    list.add("sub", {in, in}, out, OI_KERNEL_MODE_ACCUMULATE, generic);
  });
}

const KernelRegistration registration(register_sub);

}  // namespace
}  // namespace oi::cpu
