// The shared body of one-input elementwise kernels (relu, fill, cast): contiguous, in parallel
// chunks for large tensors, with an xsimd path when the functor offers one. In-place calls
// alias input and output element for element, which this order of reads and writes allows.
// Large outputs that alias no input are written with non-temporal stores (stream_store.hpp).
#pragma once

#include <xsimd/xsimd.hpp>

#include <type_traits>

#include "element_types.hpp"
#include "openinfer/plugin_abi.hpp"
#include "parallel.hpp"
#include "stream_store.hpp"

namespace oi::cpu {

template <class F, class T>
concept BatchFunctor = requires(const F& f, xsimd::batch<T> v) {
  { f(v) } -> std::same_as<xsimd::batch<T>>;
};

// po[i] = fn(pi[i]) for i in [begin, end) in batches; returns where the scalar tail starts.
template <class T, class Fn>
uint64_t unary_simd_run(const Fn& fn, const T* pi, T* po, uint64_t begin, uint64_t end,
                        bool stream) {
  using batch = xsimd::batch<T>;
  constexpr uint64_t lanes = batch::size;
  uint64_t i = begin;
  if (stream) {
    const uint64_t mis = reinterpret_cast<uintptr_t>(po + i) % sizeof(batch) / sizeof(T);
    for (const uint64_t head = i + (mis ? lanes - mis : 0); i < head && i < end; ++i) {
      po[i] = fn(pi[i]);
    }
    for (; i + lanes <= end; i += lanes) store_stream(po + i, fn(batch::load_unaligned(pi + i)));
    stream_fence();
    return i;
  }
  for (; i + lanes <= end; i += lanes) fn(batch::load_unaligned(pi + i)).store_unaligned(po + i);
  return i;
}

template <class In, class Out, class Fn>
void unary_elementwise(const oi_kernel_call& call, const Fn& fn) {
  const std::byte* in = input_data(call, 0);
  std::byte* out = output_data(call, 0);
  uint64_t count = abi::element_count(call.outputs[0]);
  const bool stream = count * sizeof(Out) >= kStreamOutputBytes && in != out;
  parallel_ranges(count, 1, [&](uint64_t begin, uint64_t end) {
    uint64_t i = begin;
    if constexpr (std::is_same_v<In, Out> && std::is_floating_point_v<Out> &&
                  BatchFunctor<Fn, Out>) {
      if (is_aligned<Out>(in) && is_aligned<Out>(out)) {
        i = unary_simd_run<Out>(fn, reinterpret_cast<const Out*>(in), reinterpret_cast<Out*>(out),
                                begin, end, stream && can_stream_v<Out>);
      }
    }
    for (; i < end; ++i) store<Out>(out, i, fn(load<In>(in, i)));
  });
}

}  // namespace oi::cpu
