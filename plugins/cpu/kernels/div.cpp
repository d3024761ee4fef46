// div: a / b. Integers truncate toward zero and INT_MIN / -1 wraps; a zero divisor gives
// div_by_zero_mask when given, else 0 for integers and IEEE inf/NaN for floats (ops.md).
#include <cmath>
#include <optional>

#include "../binary_elementwise.hpp"
#include "../generic_elementwise.hpp"
#include "../int_division.hpp"

namespace oi::cpu {
namespace {

template <class T>
struct DivOp {
  static constexpr bool simd = true;
  std::optional<T> mask;

  T operator()(T a, T b) const {
    if (b == T{0}) {
      if (mask) return *mask;
      if constexpr (!std::is_floating_point_v<T>) return T{0};
    }
    if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
      if (b == T{-1}) return wrap_sub(T{0}, a);  // INT_MIN / -1 wraps to INT_MIN
    }
    return static_cast<T>(a / b);
  }

  template <class A>
  xsimd::batch<T, A> operator()(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b) const {
    auto q = a / b;
    if (!mask) return q;
    return xsimd::select(b == xsimd::batch<T, A>(T{0}), xsimd::batch<T, A>(*mask), q);
  }
};

template <class T>
std::optional<T> read_mask(const oi_kernel_call& call) {
  const oi_setting* s = abi::find_setting(call, "div_by_zero_mask");
  if (s == nullptr) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(abi::setting_float(call, "div_by_zero_mask", 0.0));
  } else {
    // The host checked the mask is an integer that fits T.
    return static_cast<T>(abi::setting_int(call, "div_by_zero_mask", 0));
  }
}

template <class T>
oi_status* div_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  binary_elementwise<T, T>(*call, DivOp<T>{read_mask<T>(*call)});
  OI_ABI_CATCH(call->host)
}

template <class... T>
void add_div(KernelList& list) {
  for (auto mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
    (list.add("div", {dtype_tag_v<T>, dtype_tag_v<T>}, dtype_tag_v<T>, mode, &div_kernel<T>), ...);
  }
}

// f16/bf16: computed in f32 in registers (half_simd.hpp), the mask as f32, as DivGeneric does.
oi_status* half_div_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const DivMask mask = DivMask::read(*call, false);
  half_binary_elementwise(*call, half::Arith::Div, mask.given, static_cast<float>(mask.f));
  OI_ABI_CATCH(call->host)
}

// f8 (in f32), i4 and u4: the type-erased path.
struct DivGeneric {
  DivMask mask;
  static DivGeneric from(const oi_kernel_call& call) {
    return {DivMask::read(call, !elem_io(call.inputs[0].dtype).is_float)};
  }
  template <class F>
  F fl(F a, F b) const {
    if (b == F{0} && mask.given) return static_cast<F>(mask.f);
    return a / b;
  }
  int64_t in(int64_t a, int64_t b, const ElemIO& t) const {
    if (b == 0) return mask.given ? mask.i : 0;
    return int_div(a, b, t);
  }
};

void register_div(KernelList& list) {
  add_half_kernels(list, "div", &half_div_kernel);
  add_each(list, "div", {{dt::F8}, {dt::I4, dt::U4}}, 2, &generic_kernel<2, DivGeneric>, true);
  add_div<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>(
      list);
}

const KernelRegistration registration(register_div);

}  // namespace
}  // namespace oi::cpu
