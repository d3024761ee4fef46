// The shared body of two-input elementwise kernels (add, sub, mul, div): broadcasting,
// in-place aliasing, accumulate widening, the xsimd path for f32/f64, vector loops for wrapping
// integer add/sub/mul and the f16/bf16 path of half_simd.hpp.
#pragma once

#include <xsimd/xsimd.hpp>

#include <type_traits>

#include "accumulate_pairs.hpp"
#include "broadcast.hpp"
#include "cpu_status.hpp"
#include "element_types.hpp"
#include "half_simd.hpp"
#include "int_simd.hpp"
#include "kernel_registry.hpp"
#include "stream_store.hpp"

namespace oi::cpu {

// out[i] = op(a[i * sa], b[i * sb]) in xsimd batches; returns how many elements were done.
// With `stream`, a scalar head aligns the output and the batches are stored non-temporally.
template <class T, class Op>
uint64_t simd_run(const Op& op, const T* pa, uint64_t sa, const T* pb, uint64_t sb, T* po,
                  uint64_t count, bool stream) {
  using batch = xsimd::batch<T>;
  constexpr uint64_t lanes = batch::size;
  uint64_t i = 0;
  if (stream) {
    const uint64_t mis = reinterpret_cast<uintptr_t>(po) % sizeof(batch) / sizeof(T);
    for (uint64_t head = mis ? lanes - mis : 0; i < head && i < count; ++i) {
      po[i] = op(pa[i * sa], pb[i * sb]);
    }
    for (; i + lanes <= count; i += lanes) {
      batch va = sa ? batch::load_unaligned(pa + i) : batch(*pa);
      batch vb = sb ? batch::load_unaligned(pb + i) : batch(*pb);
      store_stream(po + i, op(va, vb));
    }
    stream_fence();
    return i;
  }
  for (; i + lanes <= count; i += lanes) {
    batch va = sa ? batch::load_unaligned(pa + i) : batch(*pa);
    batch vb = sb ? batch::load_unaligned(pb + i) : batch(*pb);
    op(va, vb).store_unaligned(po + i);
  }
  return i;
}

// Op is a functor with `template <class T> T operator()(T a, T b) const` for the scalar path;
// with `static constexpr bool simd = true` it must also accept xsimd batches of float/double,
// and with `static constexpr WrapOp wrap` it is that wrapping integer op (vector loops).
// Inputs of type In are converted exactly to Out (acc=) before the op.
template <class In, class Out, class Op>
void binary_elementwise(const oi_kernel_call& call, const Op& op) {
  const std::byte* a = input_data(call, 0);
  const std::byte* b = input_data(call, 1);
  std::byte* out = output_data(call, 0);
  BroadcastPlan<2> plan(call.outputs[0], {&call.inputs[0], &call.inputs[1]});
  const bool stream = plan.numel() * sizeof(Out) >= kStreamOutputBytes && out != a && out != b;
  plan.for_each_run(
      [&](uint64_t o, std::array<uint64_t, 2> in, std::array<uint64_t, 2> step, uint64_t count) {
        uint64_t i = 0;
        if constexpr (std::is_same_v<In, Out> && std::is_floating_point_v<Out> && Op::simd) {
          if (is_aligned<Out>(a) && is_aligned<Out>(b) && is_aligned<Out>(out) && step[0] <= 1 &&
              step[1] <= 1) {
            i = simd_run<Out>(op, reinterpret_cast<const Out*>(a) + in[0], step[0],
                              reinterpret_cast<const Out*>(b) + in[1], step[1],
                              reinterpret_cast<Out*>(out) + o, count, stream && can_stream_v<Out>);
          }
        }
        if constexpr (std::is_same_v<In, Out> && is_wrapping_int_v<Out> && requires { Op::wrap; }) {
          if (step[0] <= 1 && step[1] <= 1) {
            i = wrap_run<Op::wrap, Out>(a + in[0] * sizeof(Out), step[0], b + in[1] * sizeof(Out),
                                        step[1], out + o * sizeof(Out), count, stream);
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

// f16/bf16 inputs and output (same dtype): half_simd.hpp per contiguous run.
inline void half_binary_elementwise(const oi_kernel_call& call, half::Arith op,
                                    bool has_mask = false, float mask = 0.0f) {
  const half::Format format =
      call.outputs[0].dtype == OI_DTYPE_F16 ? half::Format::F16 : half::Format::BF16;
  const std::byte* a = input_data(call, 0);
  const std::byte* b = input_data(call, 1);
  std::byte* out = output_data(call, 0);
  BroadcastPlan<2> plan(call.outputs[0], {&call.inputs[0], &call.inputs[1]});
  const bool stream = plan.numel() * 2 >= kStreamOutputBytes && out != a && out != b;
  plan.for_each_run(
      [&](uint64_t o, std::array<uint64_t, 2> in, std::array<uint64_t, 2> step, uint64_t count) {
        half::BinaryRun run{a + 2 * in[0], b + 2 * in[1], out + 2 * o, step[0], step[1],
                            count,         has_mask,      mask,        stream};
        half::binary(format, op, run);
      });
}

template <half::Arith Op>
oi_status* half_binary_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  half_binary_elementwise(*call, Op);
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

// Registers fn for f16 and bf16 in normal and in-place mode.
inline void add_half_kernels(KernelList& list, const char* op, oi_kernel_fn fn) {
  for (uint32_t t : {uint32_t{OI_DTYPE_F16}, uint32_t{OI_DTYPE_BF16}}) {
    list.add(op, {t, t}, t, OI_KERNEL_MODE_NORMAL, fn);
    list.add(op, {t, t}, t, OI_KERNEL_MODE_INPLACE, fn);
  }
}

template <class Op>
void add_accumulate_kernels(KernelList& list, const char* op) {
  for_each_accumulate_pair([&]<class In, class Out>() {
    list.add(op, {dtype_tag_v<In>, dtype_tag_v<In>}, dtype_tag_v<Out>, OI_KERNEL_MODE_ACCUMULATE,
             &binary_kernel<In, Out, Op>);
  });
}

}  // namespace oi::cpu
