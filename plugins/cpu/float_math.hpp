// The elementwise math ops of ops-nn.md (exp ... gelu, pow) over the F dtypes. f32 results are
// computed in double and rounded once to f32 (so within 1 ulp of the exactly rounded value);
// f8/bf16/f16 inputs are widened to f32, take that f32 result and round it once to their own
// dtype; f64 computes in f64. An op is a functor with `double operator()(double...) const`.
#pragma once

#include <type_traits>

#include "generic_elementwise.hpp"
#include "unary_elementwise.hpp"

namespace oi::cpu {

// The generic_elementwise views of a double functor: f32 via double, f64 in f64.
template <class Fn>
struct FloatMath1 {
  Fn fn;
  template <class F>
  F fl(F a) const {
    return static_cast<F>(fn(static_cast<double>(a)));
  }
};
template <class Fn>
struct FloatMath2 {
  Fn fn;
  template <class F>
  F fl(F a, F b) const {
    return static_cast<F>(fn(static_cast<double>(a), static_cast<double>(b)));
  }
};

template <class Fn>
struct FloatMathF32 {
  Fn fn;
  float operator()(float a) const { return static_cast<float>(fn(static_cast<double>(a))); }
};

template <size_t N, class Fn>
oi_status* float_math_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  Fn fn = [&] {
    if constexpr (requires { Fn::from(*call); }) {
      return Fn::from(*call);
    } else {
      return Fn{};
    }
  }();
  const uint32_t t = call->inputs[0].dtype;
  if constexpr (N == 1) {
    // The common dtypes skip the type-erased element access.
    if (t == dt::F32) {
      unary_elementwise<float, float>(*call, FloatMathF32<Fn>{fn});
      return nullptr;
    }
    if (t == dt::F64) {
      unary_elementwise<double, double>(*call, fn);
      return nullptr;
    }
  }
  using View = std::conditional_t<N == 1, FloatMath1<Fn>, FloatMath2<Fn>>;
  generic_elementwise<N>(*call, View{fn});
  OI_ABI_CATCH(call->host)
}

// Normal and in-place kernels of `op` for f8, bf16, f16, f32 and f64.
template <size_t N, class Fn>
void add_float_math(KernelList& list, const char* op) {
  add_each(list, op, {kFloats}, N, &float_math_kernel<N, Fn>, true);
}

}  // namespace oi::cpu
