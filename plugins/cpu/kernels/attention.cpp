// attention(q, k, v[, mask]) (ops-nn.md): softmax(q·kᵀ·scale + mask)·v per batch, fused: each
// task takes a block of query rows of one batch and walks the keys in blocks, keeping only a
// [rows x keys] score tile and an online softmax (running max and sum per row, the output
// rescaled when the max grows), so the Tq x Tk matrix is never stored. f8/bf16/f16/f32
// compute in f32, f64 in f64. Tasks (batch, query block) spread over oneTBB's workers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "../attention_layout.hpp"
#include "../attention_math.hpp"
#include "../generic_elementwise.hpp"

namespace oi::cpu {
namespace {

// Query rows per task and keys per score tile: a 128 x 512 f32 tile (256 KiB) fits in L2 and
// gives BLAS products large enough to run near peak (measured faster on the 512-token prefill
// than 64 x 256, 64 x 512 and 128 x 256). A single row (decode) takes longer key blocks.
constexpr uint64_t kQueryBlock = 128;
constexpr uint64_t kKeyBlock = 512;
constexpr uint64_t kDecodeKeyBlock = 2048;

template <class C>
struct Operand {
  const std::byte* data;
  const ElemIO& io;
  bool direct;  // already C, aligned: used in place instead of converted
  Operand(const oi_kernel_call& call, uint32_t i)
      : data(input_data(call, i)),
        io(elem_io(call.inputs[i].dtype)),
        direct(call.inputs[i].dtype == dtype_tag_v<C> && is_aligned<C>(data)) {}

  // Elements [first, first + count) as C: a pointer into the input, or converted into `buf`.
  const C* view(uint64_t first, uint64_t count, std::vector<C>& buf) const {
    if (direct) return reinterpret_cast<const C*>(data) + first;
    buf.resize(std::max<uint64_t>(buf.size(), count));
    if constexpr (std::is_same_v<C, float>) {
      if (attention_widen(data, io.tag, first, count, buf.data())) return buf.data();
    }
    for (uint64_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<C, float>) {
        buf[i] = io.ld_f32(data, first + i);
      } else {
        buf[i] = io.ld_f64(data, first + i);
      }
    }
    return buf.data();
  }
};

// A bool mask drops a key outright (even where its score is NaN); a float mask is added.
template <class C>
void apply_mask(const ElemIO& io, const std::byte* data, uint64_t i, C& score) {
  if (io.is_bool) {
    if (io.ld_i(data, i) == 0) score = -std::numeric_limits<C>::infinity();
  } else if constexpr (std::is_same_v<C, float>) {
    score += io.ld_f32(data, i);
  } else {
    score += io.ld_f64(data, i);
  }
}

template <class C>
void run_attention(const oi_kernel_call& call) {
  const AttentionLayout lay(call);
  const uint64_t tq = lay.tq, d = lay.d, tk = lay.tk, dv = lay.dv;
  const auto default_scale = d > 0 ? 1.0 / std::sqrt(static_cast<double>(d)) : 1.0;
  const C scale = static_cast<C>(abi::setting_float(call, "scale", default_scale));
  const bool causal = abi::setting_bool(call, "causal", false);
  const bool has_mask = call.num_inputs > 3;
  const ElemIO* mask_io = has_mask ? &elem_io(call.inputs[3].dtype) : nullptr;
  const std::byte* mask = has_mask ? input_data(call, 3) : nullptr;
  const Operand<C> q(call, 0), k(call, 1), v(call, 2);
  const ElemIO& out_io = elem_io(call.outputs[0].dtype);
  std::byte* out = output_data(call, 0);
  const bool out_direct = call.outputs[0].dtype == dtype_tag_v<C> && is_aligned<C>(out);
  if (lay.batches == 0 || tq == 0 || dv == 0) return;

  const uint64_t bq = std::min(tq, kQueryBlock);
  const uint64_t bk = std::max<uint64_t>(1, std::min(tk, bq == 1 ? kDecodeKeyBlock : kKeyBlock));
  const uint64_t q_blocks = (tq + bq - 1) / bq;
  // Query row i sees keys j < i + 1 + offset under `causal` (ops-nn.md: j <= i + Tk - Tq).
  const int64_t offset = static_cast<int64_t>(tk) - static_cast<int64_t>(tq);
  auto visible = [&](uint64_t row) -> uint64_t {
    if (!causal) return tk;
    const int64_t n = static_cast<int64_t>(row) + 1 + offset;
    return static_cast<uint64_t>(std::clamp<int64_t>(n, 0, static_cast<int64_t>(tk)));
  };

  const uint64_t cost = bq * (tk + 1) * (d + dv + 1);
  parallel_ranges(lay.batches * q_blocks, cost, [&](uint64_t begin, uint64_t end) {
    std::vector<C> q_buf, k_buf, v_buf, scores(bq * bk), acc(bq * dv), row_max(bq), row_sum(bq);
    for (uint64_t item = begin; item < end; ++item) {
      const uint64_t b = item / q_blocks, i0 = (item % q_blocks) * bq;
      const uint64_t rows = std::min(bq, tq - i0);
      const C* qp = q.view((lay.q_matrix[b] * tq + i0) * d, rows * d, q_buf);
      std::fill(acc.begin(), acc.end(), C{0});
      std::fill(row_max.begin(), row_max.end(), -std::numeric_limits<C>::infinity());
      std::fill(row_sum.begin(), row_sum.end(), C{0});
      const uint64_t key_end = visible(i0 + rows - 1);
      for (uint64_t j0 = 0; j0 < key_end; j0 += bk) {
        const uint64_t n = std::min(bk, key_end - j0);
        const C* kp = k.view((lay.k_matrix[b] * tk + j0) * d, n * d, k_buf);
        const C* vp = v.view((lay.v_matrix[b] * tk + j0) * dv, n * dv, v_buf);
        attention_scores<C>(qp, d, kp, d, scores.data(), bk, rows, n, d);
        for (uint64_t r = 0; r < rows; ++r) {
          C* s = scores.data() + r * bk;
          const uint64_t seen = std::min(n, visible(i0 + r) - std::min(visible(i0 + r), j0));
          for (uint64_t j = 0; j < seen; ++j) s[j] = d > 0 ? s[j] * scale : C{0};
          if (has_mask) {
            const uint64_t base = lay.mask_base[b] + (i0 + r) * lay.mask_row_stride;
            for (uint64_t j = 0; j < seen; ++j)
              apply_mask<C>(*mask_io, mask, base + (j0 + j) * lay.mask_col_stride, s[j]);
          }
          std::fill(s + seen, s + n, -std::numeric_limits<C>::infinity());
          const C alpha = attention_row_update(s, n, row_max[r], row_sum[r]);
          if (alpha != C{1}) {
            C* o = acc.data() + r * dv;
            for (uint64_t c = 0; c < dv; ++c) o[c] *= alpha;
          }
        }
        attention_accumulate<C>(scores.data(), bk, vp, dv, acc.data(), dv, rows, dv, n);
      }
      // Normalise; a row that saw no unmasked key gives 0 (ops-nn.md), not 0/0.
      for (uint64_t r = 0; r < rows; ++r) {
        const C l = row_sum[r];
        const C inv = l == C{0} ? C{0} : C{1} / l;
        const uint64_t first = ((b * tq) + i0 + r) * dv;
        const C* o = acc.data() + r * dv;
        if (out_direct) {
          C* y = reinterpret_cast<C*>(out) + first;
          for (uint64_t c = 0; c < dv; ++c) y[c] = l == C{0} ? C{0} : o[c] * inv;
        } else {
          for (uint64_t c = 0; c < dv; ++c) {
            const C y = l == C{0} ? C{0} : o[c] * inv;
            if constexpr (std::is_same_v<C, float>) {
              out_io.st_f32(out, first + c, y);
            } else {
              out_io.st_f64(out, first + c, y);
            }
          }
        }
      }
    }
  });
}

oi_status* attention_kernel(const oi_kernel_call* call) {
  OI_ABI_TRY
  if (call->inputs[0].dtype == OI_DTYPE_F64) {
    run_attention<double>(*call);
  } else {
    run_attention<float>(*call);
  }
  OI_ABI_CATCH(call->host)
}

void register_attention(KernelList& list) {
  for (uint32_t t : kFloats) {
    list.add("attention", {t, t, t}, t, OI_KERNEL_MODE_NORMAL, &attention_kernel);
    for (DTypes g : {kFloats, DTypes{dt::BOOL}})
      for (uint32_t m : g)
        list.add("attention", {t, t, t, m}, t, OI_KERNEL_MODE_NORMAL, &attention_kernel);
  }
}

const KernelRegistration registration(register_attention);

}  // namespace
}  // namespace oi::cpu
