// relu: y = a >= 0 ? a : alpha * a, a zero result is +0.0, then clamped to
// [clamp_min, clamp_max] with NaN kept (ops.md). Integers wrap in alpha * a.
#include <cmath>
#include <limits>

#include "../generic_elementwise.hpp"
#include "../half_simd.hpp"
#include "../kernel_registry.hpp"
#include "../unary_elementwise.hpp"

namespace oi::cpu {
namespace {

template <class T>
struct FloatRelu {
  T alpha, lo, hi;
  T operator()(T a) const {
    T y = a >= T{0} ? a : alpha * a;
    if (y == T{0}) y = T{0};
    if (y < lo) y = lo;
    if (y > hi) y = hi;
    return y;
  }
  xsimd::batch<T> operator()(xsimd::batch<T> a) const {
    using batch = xsimd::batch<T>;
    batch zero(T{0});
    batch y = xsimd::select(a >= zero, a, batch(alpha) * a);
    y = xsimd::select(y == zero, zero, y);
    y = xsimd::select(y < batch(lo), batch(lo), y);
    return xsimd::select(y > batch(hi), batch(hi), y);
  }
};

// alpha 0, no upper bound and a lower bound <= 0 (the default relu): positive and NaN inputs
// pass, the rest give 0 * a + 0, which is +0 except that -inf gives NaN (0 * -inf), exactly as
// FloatRelu does; one compare, multiply, add and select per batch.
template <class T>
struct PlainRelu {
  T operator()(T a) const { return a <= T{0} ? a * T{0} + T{0} : a; }
  xsimd::batch<T> operator()(xsimd::batch<T> a) const {
    const xsimd::batch<T> zero(T{0});
    return xsimd::select(a <= zero, a * zero + zero, a);
  }
};

template <class T>
struct IntRelu {
  T alpha;
  bool has_lo, has_hi;
  T lo, hi;
  T operator()(T a) const {
    T y = a >= T{0} ? a : wrap_mul(alpha, a);
    if (has_lo && y < lo) y = lo;
    if (has_hi && y > hi) y = hi;
    return y;
  }
};

double alpha_setting(const oi_kernel_call& call) {
  if (abi::find_setting(call, "alpha")) return abi::setting_float(call, "alpha", 0.0);
  return abi::setting_float(call, "negative_slope", 0.0);
}

template <class T>
oi_status* relu_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const double lo = abi::setting_float(*call, "clamp_min", -HUGE_VAL);
  const double hi = abi::setting_float(*call, "clamp_max", HUGE_VAL);
  if constexpr (std::is_floating_point_v<T>) {
    FloatRelu<T> f{static_cast<T>(alpha_setting(*call)), static_cast<T>(lo), static_cast<T>(hi)};
    if (f.alpha == T{0} && f.lo <= T{0} && f.hi == std::numeric_limits<T>::infinity()) {
      unary_elementwise<T, T>(*call, PlainRelu<T>{});
    } else {
      unary_elementwise<T, T>(*call, f);
    }
  } else {
    // The host checked that alpha and the finite bounds are integers that fit T.
    const char* alpha_name = abi::find_setting(*call, "alpha") ? "alpha" : "negative_slope";
    IntRelu<T> f{static_cast<T>(abi::setting_int(*call, alpha_name, 0)), std::isfinite(lo),
                 std::isfinite(hi), T{0}, T{0}};
    if (f.has_lo) f.lo = static_cast<T>(abi::setting_int(*call, "clamp_min", 0));
    if (f.has_hi) f.hi = static_cast<T>(abi::setting_int(*call, "clamp_max", 0));
    unary_elementwise<T, T>(*call, f);
  }
  OI_ABI_CATCH(call->host)
}

// f16/bf16: in f32 in registers (half_simd.hpp), rounded once, the settings as f32 like
// GenericRelu; large outputs not in place are streamed.
oi_status* half_relu_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  const half::Format format =
      call->outputs[0].dtype == OI_DTYPE_F16 ? half::Format::F16 : half::Format::BF16;
  const std::byte* in = input_data(*call, 0);
  std::byte* out = output_data(*call, 0);
  const uint64_t count = abi::element_count(call->outputs[0]);
  const half::ReluParams p{static_cast<float>(alpha_setting(*call)),
                           static_cast<float>(abi::setting_float(*call, "clamp_min", -HUGE_VAL)),
                           static_cast<float>(abi::setting_float(*call, "clamp_max", HUGE_VAL)),
                           count * 2 >= kStreamOutputBytes && in != out};
  parallel_ranges(count, 1, [&](uint64_t begin, uint64_t end) {
    half::relu(format, in + 2 * begin, out + 2 * begin, end - begin, p);
  });
  OI_ABI_CATCH(call->host)
}

// f8 in f32 and i4: the type-erased path, same rules.
struct GenericRelu {
  double alpha, lo, hi;
  IntRelu<int64_t> ints;
  static GenericRelu from(const oi_kernel_call& call) {
    GenericRelu r{alpha_setting(call),
                  abi::setting_float(call, "clamp_min", -HUGE_VAL),
                  abi::setting_float(call, "clamp_max", HUGE_VAL),
                  {0, false, false, 0, 0}};
    if (!elem_io(call.inputs[0].dtype).is_float) {
      const char* alpha_name = abi::find_setting(call, "alpha") ? "alpha" : "negative_slope";
      r.ints = {abi::setting_int(call, alpha_name, 0), std::isfinite(r.lo), std::isfinite(r.hi), 0,
                0};
      if (r.ints.has_lo) r.ints.lo = abi::setting_int(call, "clamp_min", 0);
      if (r.ints.has_hi) r.ints.hi = abi::setting_int(call, "clamp_max", 0);
    }
    return r;
  }
  template <class F>
  F fl(F a) const {
    return FloatRelu<F>{static_cast<F>(alpha), static_cast<F>(lo), static_cast<F>(hi)}(a);
  }
  int64_t in(int64_t a, const ElemIO& t) const {
    int64_t y = a >= 0 ? a : wrap_to(wmul(ints.alpha, a), t);  // wraps at the dtype's width
    if (ints.has_lo && y < ints.lo) y = ints.lo;
    if (ints.has_hi && y > ints.hi) y = ints.hi;
    return y;
  }
};

template <class... T>
void add_relu(KernelList& list) {
  for (auto mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
    (list.add("relu", {dtype_tag_v<T>}, dtype_tag_v<T>, mode, &relu_kernel<T>), ...);
  }
}

void register_relu(KernelList& list) {
  add_relu<float, double, int8_t, int16_t, int32_t, int64_t>(list);
  add_each(list, "relu", {{dt::F16, dt::BF16}}, 1, &half_relu_kernel, true);
  add_each(list, "relu", {{dt::F8}, {dt::I4}}, 1, &generic_kernel<1, GenericRelu>, true);
}

const KernelRegistration registration(register_relu);

}  // namespace
}  // namespace oi::cpu
