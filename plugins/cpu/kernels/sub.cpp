// sub: a - b; integers wrap (ops.md). No bool kernel: the catalog has none.
#include "../binary_elementwise.hpp"

namespace oi::cpu {
namespace {

struct SubOp {
  static constexpr bool simd = true;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (is_wrapping_int_v<T>) {
      return wrap_sub(a, b);
    } else {
      return a - b;
    }
  }
};

void register_sub(KernelList& list) {
  add_same_type_kernels<SubOp, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                        uint32_t, uint64_t>(list, "sub");
  add_accumulate_kernels<SubOp>(list, "sub");
}

const KernelRegistration registration(register_sub);

}  // namespace
}  // namespace oi::cpu
