// The shared body of one-input elementwise kernels (relu, fill, cast): contiguous, in parallel
// chunks for large tensors, with an xsimd path when the functor offers one. In-place calls
// alias input and output element for element, which this order of reads and writes allows.
#pragma once

#include <xsimd/xsimd.hpp>

#include <type_traits>

#include "element_types.hpp"
#include "openinfer/plugin_abi.hpp"
#include "parallel.hpp"

namespace oi::cpu {

template <class F, class T>
concept BatchFunctor = requires(const F& f, xsimd::batch<T> v) {
  { f(v) } -> std::same_as<xsimd::batch<T>>;
};

template <class In, class Out, class Fn>
void unary_elementwise(const oi_kernel_call& call, const Fn& fn) {
  const std::byte* in = input_data(call, 0);
  std::byte* out = output_data(call, 0);
  uint64_t count = abi::element_count(call.outputs[0]);
  parallel_ranges(count, 1, [&](uint64_t begin, uint64_t end) {
    uint64_t i = begin;
    if constexpr (std::is_same_v<In, Out> && std::is_floating_point_v<Out> &&
                  BatchFunctor<Fn, Out>) {
      using batch = xsimd::batch<Out>;
      if (is_aligned<Out>(in) && is_aligned<Out>(out)) {
        const Out* pi = reinterpret_cast<const Out*>(in);
        Out* po = reinterpret_cast<Out*>(out);
        for (; i + batch::size <= end; i += batch::size) {
          fn(batch::load_unaligned(pi + i)).store_unaligned(po + i);
        }
      }
    }
    for (; i < end; ++i) store<Out>(out, i, fn(load<In>(in, i)));
  });
}

}  // namespace oi::cpu
