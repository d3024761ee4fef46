// matmul: [..., M, K] x [..., K, N] -> [..., M, N] with numpy batch broadcasting (ops.md).
// Each output element is a sequential dot product over k in the output's type: f32 in f32,
// f64 in f64, integers wrapping (at the acc= width when given), bool as or-of-ands. f32 and f64
// products large enough to pay for it go to OpenBLAS's sgemm/dgemm instead (blas_matmul.hpp):
// still f32 (f64) accumulation, in another order, within ops.md's matmul tolerance.
#include <cstring>
#include <vector>

#include "../accumulate_pairs.hpp"
#include "../blas_matmul.hpp"
#include "../broadcast.hpp"
#include "../cpu_status.hpp"
#include "../element_types.hpp"
#include "../generic_elementwise.hpp"
#include "../kernel_registry.hpp"

namespace oi::cpu {
namespace {

template <class T>
inline T multiply_add(T acc, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return acc || (a && b);
  } else if constexpr (is_wrapping_int_v<T>) {
    return wrap_add(acc, wrap_mul(a, b));
  } else {
    return acc + a * b;  // two roundings: -ffp-contract=off keeps this from becoming an fma
  }
}

// Where one matrix of each operand starts, for every batch of the output.
struct BatchLayout {
  uint64_t batches = 1;
  std::vector<uint64_t> a_matrix, b_matrix;

  BatchLayout(const oi_tensor_desc& a, const oi_tensor_desc& b, const oi_tensor_desc& out) {
    auto batch_desc = [](const oi_tensor_desc& t) {
      oi_tensor_desc d = t;
      d.rank = t.rank - 2;
      return d;
    };
    oi_tensor_desc ab = batch_desc(a), bb = batch_desc(b), ob = batch_desc(out);
    BroadcastPlan<2> plan(ob, {&ab, &bb});
    batches = plan.numel();
    for (uint64_t i = 0; i < batches; ++i) {
      a_matrix.push_back(plan.input_index(0, i));
      b_matrix.push_back(plan.input_index(1, i));
    }
  }
};

template <class In, class Out>
void matmul(const oi_kernel_call& call) {
  const oi_tensor_desc& a = call.inputs[0];
  const oi_tensor_desc& b = call.inputs[1];
  const oi_tensor_desc& o = call.outputs[0];
  const uint64_t M = a.dims[a.rank - 2], K = a.dims[a.rank - 1], N = b.dims[b.rank - 1];
  const BatchLayout layout(a, b, o);
  const std::byte* pa = input_data(call, 0);
  const std::byte* pb = input_data(call, 1);
  // In place, the output overwrites an operand still being read: compute into a copy first.
  const bool in_place = call.kernel->mode == OI_KERNEL_MODE_INPLACE;
  std::vector<Out> staged(in_place ? layout.batches * M * N : 0);
  std::byte* po = output_data(call, 0);
  if constexpr (std::is_same_v<In, Out> && std::is_floating_point_v<Out>) {
    std::byte* target = in_place ? reinterpret_cast<std::byte*>(staged.data()) : po;
    if (blas_matmul<Out>(pa, pb, target, layout.batches, layout.a_matrix.data(),
                         layout.b_matrix.data(), M, K, N)) {
      if (in_place) std::memcpy(po, staged.data(), staged.size() * sizeof(Out));
      return;
    }
  }

  parallel_ranges(layout.batches * M, K * N, [&](uint64_t row_begin, uint64_t row_end) {
    std::vector<Out> acc(N);
    for (uint64_t row = row_begin; row < row_end; ++row) {
      const uint64_t batch = row / M, i = row % M;
      const uint64_t a_row = (layout.a_matrix[batch] * M + i) * K;
      const uint64_t b_base = layout.b_matrix[batch] * K * N;
      std::fill(acc.begin(), acc.end(), Out{});
      for (uint64_t k = 0; k < K; ++k) {
        const Out av = static_cast<Out>(load<In>(pa, a_row + k));
        for (uint64_t j = 0; j < N; ++j) {
          acc[j] =
              multiply_add<Out>(acc[j], av, static_cast<Out>(load<In>(pb, b_base + k * N + j)));
        }
      }
      for (uint64_t j = 0; j < N; ++j) {
        if (in_place) {
          staged[row * N + j] = acc[j];
        } else {
          store<Out>(po, row * N + j, acc[j]);
        }
      }
    }
  });
  for (uint64_t e = 0; e < staged.size(); ++e) store<Out>(po, e, staged[e]);
}

template <class In, class Out>
oi_status* matmul_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  matmul<In, Out>(*call);
  OI_ABI_CATCH(call->host)
}

// f8/bf16/f16 (dot products in f32, one rounding per element), packed integers and bitset
// (int64, wrapped at the output width, the acc= one when given). Results are staged and then
// stored in order: packed rows share bytes, and in place the output overwrites an operand.
template <class Acc, class Load>
void generic_matmul(const oi_kernel_call& call, Load load) {
  const oi_tensor_desc& a = call.inputs[0];
  const oi_tensor_desc& b = call.inputs[1];
  const uint64_t M = a.dims[a.rank - 2], K = a.dims[a.rank - 1], N = b.dims[b.rank - 1];
  const BatchLayout layout(a, b, call.outputs[0]);
  const ElemIO& ia = elem_io(a.dtype);
  const ElemIO& ib = elem_io(b.dtype);
  const std::byte* pa = input_data(call, 0);
  const std::byte* pb = input_data(call, 1);
  std::vector<Acc> staged(layout.batches * M * N);
  parallel_ranges(layout.batches * M, K * N, [&](uint64_t row_begin, uint64_t row_end) {
    for (uint64_t row = row_begin; row < row_end; ++row) {
      const uint64_t batch = row / M, i = row % M;
      const uint64_t a_row = (layout.a_matrix[batch] * M + i) * K;
      const uint64_t b_base = layout.b_matrix[batch] * K * N;
      Acc* acc = staged.data() + row * N;
      for (uint64_t k = 0; k < K; ++k) {
        const Acc av = load(ia, pa, a_row + k);
        for (uint64_t j = 0; j < N; ++j) {
          const Acc bv = load(ib, pb, b_base + k * N + j);
          if constexpr (std::is_same_v<Acc, float>) {
            acc[j] = acc[j] + av * bv;
          } else {
            acc[j] = wadd(acc[j], wmul(av, bv));
          }
        }
      }
    }
  });
  const ElemIO& out = elem_io(call.outputs[0].dtype);
  std::byte* po = output_data(call, 0);
  for (uint64_t e = 0; e < staged.size(); ++e) store_result(out, po, e, staged[e]);
}

oi_status* generic_matmul_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  if (elem_io(call->inputs[0].dtype).is_float) {
    generic_matmul<float>(
        *call, [](const ElemIO& io, const std::byte* p, uint64_t i) { return io.ld_f32(p, i); });
  } else {
    generic_matmul<int64_t>(
        *call, [](const ElemIO& io, const std::byte* p, uint64_t i) { return io.ld_i(p, i); });
  }
  OI_ABI_CATCH(call->host)
}

template <class... T>
void add_matmul(KernelList& list) {
  for (auto mode : {OI_KERNEL_MODE_NORMAL, OI_KERNEL_MODE_INPLACE}) {
    (list.add("matmul", {dtype_tag_v<T>, dtype_tag_v<T>}, dtype_tag_v<T>, mode,
              &matmul_kernel<T, T>),
     ...);
  }
}

void register_matmul(KernelList& list) {
  add_matmul<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
             uint64_t, bool>(list);
  for_each_accumulate_pair([&]<class In, class Out>() {
    list.add("matmul", {dtype_tag_v<In>, dtype_tag_v<In>}, dtype_tag_v<Out>,
             OI_KERNEL_MODE_ACCUMULATE, &matmul_kernel<In, Out>);
  });
  add_each(list, "matmul", {kNarrowFloats, kPackedInts, {dt::BITSET}}, 2, &generic_matmul_kernel,
           true);
  for_each_packed_accumulate_pair([&](uint32_t in, uint32_t out) {
    list.add("matmul", {in, in}, out, OI_KERNEL_MODE_ACCUMULATE, &generic_matmul_kernel);
  });
}

const KernelRegistration registration(register_matmul);

}  // namespace
}  // namespace oi::cpu
