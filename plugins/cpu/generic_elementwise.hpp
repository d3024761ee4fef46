// Type-erased elementwise kernels for every dtype without a templated fast path: operands are
// read and written through their ElemIO, and the op is computed in the input's Domain (f32 for
// f8/bf16/f16/f32, f64, or int64 for integers, bool and bitset; acc= outputs widen). An op is a
// functor with
//   template <class F> R fl(F a, ...) const        for F = float and double
//   R in(int64_t a, ..., const ElemIO& t) const    t: the integer dtype computed in
// where R is the value stored: float/double (rounded once to the output dtype), int64_t
// (wrapped to the output width) or bool.
#pragma once

#include <array>
#include <type_traits>

#include "broadcast.hpp"
#include "cpu_status.hpp"
#include "dtype_io.hpp"
#include "element_types.hpp"
#include "kernel_registry.hpp"
#include "openinfer/plugin_abi.hpp"
#include "parallel.hpp"

namespace oi::cpu {

template <class R>
inline void store_result(const ElemIO& io, std::byte* out, uint64_t i, R v) {
  if constexpr (std::is_same_v<R, float>) {
    io.st_f32(out, i, v);
  } else if constexpr (std::is_same_v<R, double>) {
    io.st_f64(out, i, v);
  } else {
    io.st_i(out, i, static_cast<int64_t>(v));
  }
}

// Calls fn(out_index, in_index) for every output element, in parallel chunks that start on
// multiples of kPackedAlign so that no two threads write the same packed byte.
template <size_t N, class Fn>
void for_each_element(const oi_kernel_call& call, Fn&& fn) {
  std::array<const oi_tensor_desc*, N> descs;
  for (size_t k = 0; k < N; ++k) descs[k] = &call.inputs[k];
  const BroadcastPlan<N> plan(call.outputs[0], descs);
  const uint64_t n = plan.numel();
  const uint64_t blocks = (n + kPackedAlign - 1) / kPackedAlign;
  parallel_ranges(blocks, kPackedAlign, [&](uint64_t b0, uint64_t b1) {
    const uint64_t end = std::min(n, b1 * kPackedAlign);
    std::array<uint64_t, N> in;
    for (uint64_t o = b0 * kPackedAlign; o < end; ++o) {
      for (size_t k = 0; k < N; ++k) in[k] = plan.same_shape() ? o : plan.input_index(k, o);
      fn(o, in);
    }
  });
}

// One entry point for every arity: loads N operands in the domain of input 0.
template <size_t N, class Op>
void generic_elementwise(const oi_kernel_call& call, const Op& op) {
  std::array<const ElemIO*, N> io;
  std::array<const std::byte*, N> data;
  for (size_t k = 0; k < N; ++k) {
    io[k] = &elem_io(call.inputs[k].dtype);
    data[k] = input_data(call, static_cast<uint32_t>(k));
  }
  const ElemIO& out_io = elem_io(call.outputs[0].dtype);
  std::byte* out = output_data(call, 0);
  constexpr bool has_floats = requires {
    &Op::template fl<float>;
  };
  constexpr bool has_ints = requires {
    &Op::in;
  };
  const Domain domain = io[0]->domain();
  if ((domain == Domain::Int && !has_ints) || (domain != Domain::Int && !has_floats)) {
    fail(OI_STATUS_UNIMPLEMENTED, "cpu: no kernel for this dtype");
  }
  switch (domain) {
    case Domain::F32:
      if constexpr (has_floats) {
        for_each_element<N>(call, [&](uint64_t o, const std::array<uint64_t, N>& in) {
          [&]<size_t... K>(std::index_sequence<K...>) {
            store_result(out_io, out, o, op.fl(io[K]->ld_f32(data[K], in[K])...));
          }
          (std::make_index_sequence<N>{});
        });
      }
      break;
    case Domain::F64:
      if constexpr (has_floats) {
        for_each_element<N>(call, [&](uint64_t o, const std::array<uint64_t, N>& in) {
          [&]<size_t... K>(std::index_sequence<K...>) {
            store_result(out_io, out, o, op.fl(io[K]->ld_f64(data[K], in[K])...));
          }
          (std::make_index_sequence<N>{});
        });
      }
      break;
    case Domain::Int:
      if constexpr (has_ints) {
        // acc= computes at the output's width; otherwise output and input agree (or the output
        // is bool/u8/i8 and only the input's signedness matters).
        const ElemIO& t = call.kernel->mode == OI_KERNEL_MODE_ACCUMULATE ? out_io : *io[0];
        for_each_element<N>(call, [&](uint64_t o, const std::array<uint64_t, N>& in) {
          [&]<size_t... K>(std::index_sequence<K...>) {
            store_result(out_io, out, o, op.in(io[K]->ld_i(data[K], in[K])..., t));
          }
          (std::make_index_sequence<N>{});
        });
      }
      break;
  }
}

template <size_t N, class Op>
oi_status* generic_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  if constexpr (requires { Op::from(*call); }) {
    generic_elementwise<N>(*call, Op::from(*call));  // an op with settings
  } else {
    generic_elementwise<N>(*call, Op{});
  }
  OI_ABI_CATCH(call->host)
}

// Dtype groups of the catalog, for registration.
namespace dt {
inline constexpr uint32_t F8 = OI_DTYPE_F8, BF16 = OI_DTYPE_BF16, F16 = OI_DTYPE_F16,
                          F32 = OI_DTYPE_F32, F64 = OI_DTYPE_F64, I1 = OI_DTYPE_I1,
                          I2 = OI_DTYPE_I2, I4 = OI_DTYPE_I4, I8 = OI_DTYPE_I8, I16 = OI_DTYPE_I16,
                          I32 = OI_DTYPE_I32, I64 = OI_DTYPE_I64, U1 = OI_DTYPE_U1,
                          U2 = OI_DTYPE_U2, U4 = OI_DTYPE_U4, U8 = OI_DTYPE_U8, U16 = OI_DTYPE_U16,
                          U32 = OI_DTYPE_U32, U64 = OI_DTYPE_U64, BOOL = OI_DTYPE_BOOL,
                          BITSET = OI_DTYPE_BITSET;
}  // namespace dt

using DTypes = std::initializer_list<uint32_t>;
inline constexpr DTypes kFloats = {dt::F8, dt::BF16, dt::F16, dt::F32, dt::F64};
inline constexpr DTypes kNarrowFloats = {dt::F8, dt::BF16, dt::F16};
inline constexpr DTypes kSigned = {dt::I1, dt::I2, dt::I4, dt::I8, dt::I16, dt::I32, dt::I64};
inline constexpr DTypes kUnsigned = {dt::U1, dt::U2, dt::U4, dt::U8, dt::U16, dt::U32, dt::U64};
inline constexpr DTypes kPackedInts = {dt::I1, dt::I2, dt::I4, dt::U1, dt::U2, dt::U4};

// Registers `fn` for every dtype of `groups`, with n inputs of that dtype; the output is the
// same dtype, or `out` when given. In-place too when `inplace`.
inline void add_each(KernelList& list, const char* op, std::initializer_list<DTypes> groups,
                     size_t n, oi_kernel_fn fn, bool inplace, uint32_t out = 0) {
  for (DTypes g : groups) {
    for (uint32_t t : g) {
      std::vector<uint32_t> ins(n, t);
      list.add(op, ins, out ? out : t, OI_KERNEL_MODE_NORMAL, fn);
      if (inplace) list.add(op, ins, out ? out : t, OI_KERNEL_MODE_INPLACE, fn);
    }
  }
}

// The catalog's acc= pairs from the packed widths (the byte-sized ones are in
// accumulate_pairs.hpp): i1/i2/i4 -> i8..i64, u1/u2/u4 -> u8..u64.
template <class Add>
void for_each_packed_accumulate_pair(Add&& add) {
  for (uint32_t in : {dt::I1, dt::I2, dt::I4}) {
    for (uint32_t out : {dt::I8, dt::I16, dt::I32, dt::I64}) add(in, out);
  }
  for (uint32_t in : {dt::U1, dt::U2, dt::U4}) {
    for (uint32_t out : {dt::U8, dt::U16, dt::U32, dt::U64}) add(in, out);
  }
}

// Two's-complement helpers on int64 values (no signed-overflow UB).
inline int64_t wadd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wsub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wmul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
// v reduced to the dtype's width, sign- or zero-extended back to 64 bits.
inline int64_t wrap_to(int64_t v, const ElemIO& t) {
  if (t.bits >= 64) return v;
  const unsigned shift = 64 - t.bits;
  const uint64_t low = static_cast<uint64_t>(v) << shift;
  return t.is_signed ? static_cast<int64_t>(low) >> shift : static_cast<int64_t>(low >> shift);
}
// a < b in the dtype's signedness (u64 values above INT64_MAX are negative int64 patterns).
inline bool int_less(int64_t a, int64_t b, const ElemIO& t) {
  return t.is_signed ? a < b : static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
}

}  // namespace oi::cpu
