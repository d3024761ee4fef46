// The shared body of two-input elementwise kernels (add, sub, mul, div): broadcasting,
// in-place aliasing, accumulate widening and the xsimd path for f32/f64.
#pragma once

#include <xsimd/xsimd.hpp>

#include <type_traits>

#include "accumulate_pairs.hpp"
#include "broadcast.hpp"
#include "cpu_status.hpp"
#include "element_types.hpp"
#include "kernel_registry.hpp"

namespace oi::cpu {

// Op is a functor with `template <class T> T operator()(T a, T b) const` for the scalar path;
// with `static constexpr bool simd = true` it must also accept xsimd batches of float/double.
// Inputs of type In are converted exactly to Out (acc=) before the op.
template <class In, class Out, class Op>
void binary_elementwise(const oi_kernel_call& call, const Op& op) {
  const std::byte* a = input_data(call, 0);
  const std::byte* b = input_data(call, 1);
  std::byte* out = output_data(call, 0);
  BroadcastPlan<2> plan(call.outputs[0], {&call.inputs[0], &call.inputs[1]});
  plan.for_each_run(
      [&](uint64_t o, std::array<uint64_t, 2> in, std::array<uint64_t, 2> step, uint64_t count) {
        uint64_t i = 0;
        if constexpr (std::is_same_v<In, Out> && std::is_floating_point_v<Out> && Op::simd) {
          using batch = xsimd::batch<Out>;
          constexpr uint64_t lanes = batch::size;
          if (is_aligned<Out>(a) && is_aligned<Out>(b) && is_aligned<Out>(out) && step[0] <= 1 &&
              step[1] <= 1) {
            const Out* pa = reinterpret_cast<const Out*>(a) + in[0];
            const Out* pb = reinterpret_cast<const Out*>(b) + in[1];
            Out* po = reinterpret_cast<Out*>(out) + o;
            for (; i + lanes <= count; i += lanes) {
              batch va = step[0] ? batch::load_unaligned(pa + i) : batch(*pa);
              batch vb = step[1] ? batch::load_unaligned(pb + i) : batch(*pb);
              op(va, vb).store_unaligned(po + i);
            }
          }
        }
        for (; i < count; ++i) {
          Out va = static_cast<Out>(load<In>(a, in[0] + i * step[0]));
          Out vb = static_cast<Out>(load<In>(b, in[1] + i * step[1]));
          store<Out>(out, o + i, op(va, vb));
        }
      });
}

template <class In, class Out, class Op>
oi_status* binary_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  binary_elementwise<In, Out, Op>(*call, Op{});
  OI_ABI_CATCH(call->host)
}

// Registers Op for T in normal and in-place mode.
template <class Op, class... T>
void add_same_type_kernels(KernelList& list, const char* op) {
  (list.add(op, {dtype_tag_v<T>, dtype_tag_v<T>}, dtype_tag_v<T>, OI_KERNEL_MODE_NORMAL,
            &binary_kernel<T, T, Op>),
   ...);
  (list.add(op, {dtype_tag_v<T>, dtype_tag_v<T>}, dtype_tag_v<T>, OI_KERNEL_MODE_INPLACE,
            &binary_kernel<T, T, Op>),
   ...);
}

template <class Op>
void add_accumulate_kernels(KernelList& list, const char* op) {
  for_each_accumulate_pair([&]<class In, class Out>() {
    list.add(op, {dtype_tag_v<In>, dtype_tag_v<In>}, dtype_tag_v<Out>, OI_KERNEL_MODE_ACCUMULATE,
             &binary_kernel<In, Out, Op>);
  });
}

}  // namespace oi::cpu
