// The elementwise math ops of ops-nn.md (exp ... gelu, pow) over the F dtypes. f32, f16, bf16
// and f8 go through vector_math's span functions (within 2 ulp of the exactly rounded f32 result,
// measured at 1; the narrow floats widened to f32 and that result rounded once to their dtype);
// f64 computes with the C library in f64, and pow's broadcasts other than a single exponent and
// its narrow floats take the type-erased path (double, rounded once). An op is a functor with
// `double operator()(double...) const` (the f64 and generic paths) and either
// `vmath::Func vector_func() const` (one input) or `static constexpr bool kVectorPow` (pow).
#pragma once

#include <type_traits>

#include "generic_elementwise.hpp"
#include "unary_elementwise.hpp"
#include "vector_math_call.hpp"

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
    static_assert(
        requires { fn.vector_func(); }, "a one-input math op names its vmath::Func");
    if (t != dt::F64 && run_unary_span(*call, vmath::unary_span(fn.vector_func()))) return nullptr;
    if (t == dt::F64) {
      unary_elementwise<double, double>(*call, fn);
      return nullptr;
    }
  } else if constexpr (requires { Fn::kVectorPow; }) {
    if (run_pow_span(*call, vmath::pow_span())) return nullptr;
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
