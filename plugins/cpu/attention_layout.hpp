// Where each attention batch reads from: q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] and
// the mask broadcast to [..., Tq, Tk] (ops-nn.md). The host has checked that the leading dims
// broadcast to the output's; this only turns a batch index into each operand's matrix index
// (size-1 dims repeat) and the mask into a base offset plus row and column strides.
#pragma once

#include <cstdint>
#include <vector>

#include "openinfer/plugin_abi.h"

namespace oi::cpu {

struct AttentionLayout {
  uint64_t tq = 0, d = 0, tk = 0, dv = 0, batches = 1;
  // Per batch index: which [T, D] matrix of q, k and v it reads, and where its mask starts.
  std::vector<uint64_t> q_matrix, k_matrix, v_matrix, mask_base;
  uint64_t mask_row_stride = 0, mask_col_stride = 0;  // 0 along a broadcast dim

  explicit AttentionLayout(const oi_kernel_call& call) {
    const oi_tensor_desc& out = call.outputs[0];
    const oi_tensor_desc& q = call.inputs[0];
    const oi_tensor_desc& k = call.inputs[1];
    const oi_tensor_desc& v = call.inputs[2];
    tq = q.dims[q.rank - 2];
    d = q.dims[q.rank - 1];
    tk = k.dims[k.rank - 2];
    dv = v.dims[v.rank - 1];
    const uint32_t lead = out.rank - 2;
    std::vector<uint64_t> batch_dims(out.dims, out.dims + lead);
    for (uint64_t n : batch_dims) batches *= n;
    // Strides of each operand over the output's batch dims, right-aligned; 0 where broadcast.
    auto batch_strides = [&](const oi_tensor_desc& t, uint32_t trailing, uint64_t inner) {
      std::vector<uint64_t> strides(lead, 0);
      uint64_t stride = inner;
      for (uint32_t j = trailing; j < t.rank; ++j) {
        const uint32_t axis = t.rank - 1 - j;
        const int64_t out_axis = int64_t(lead) - 1 - (j - trailing);
        if (out_axis < 0) break;
        if (t.dims[axis] != 1) strides[size_t(out_axis)] = stride;
        stride *= t.dims[axis];
      }
      return strides;
    };
    const auto qs = batch_strides(q, 2, 1), ks = batch_strides(k, 2, 1),
               vs = batch_strides(v, 2, 1);
    std::vector<uint64_t> ms(lead, 0);
    const bool has_mask = call.num_inputs > 3;
    if (has_mask) {
      const oi_tensor_desc& m = call.inputs[3];
      // The mask's last two dims (where present) run along Tq and Tk.
      if (m.rank >= 1 && m.dims[m.rank - 1] != 1) mask_col_stride = 1;
      const uint64_t cols = m.rank >= 1 ? m.dims[m.rank - 1] : 1;
      if (m.rank >= 2 && m.dims[m.rank - 2] != 1) mask_row_stride = cols;
      const uint64_t rows = m.rank >= 2 ? m.dims[m.rank - 2] : 1;
      if (m.rank > 2) ms = batch_strides(m, 2, rows * cols);
    }
    q_matrix.assign(batches, 0);
    k_matrix.assign(batches, 0);
    v_matrix.assign(batches, 0);
    mask_base.assign(batches, 0);
    for (uint64_t b = 0; b < batches; ++b) {
      uint64_t rest = b;
      for (int64_t axis = int64_t(lead) - 1; axis >= 0; --axis) {
        const uint64_t c = rest % batch_dims[size_t(axis)];
        rest /= batch_dims[size_t(axis)];
        q_matrix[b] += c * qs[size_t(axis)];
        k_matrix[b] += c * ks[size_t(axis)];
        v_matrix[b] += c * vs[size_t(axis)];
        mask_base[b] += c * ms[size_t(axis)];
      }
    }
  }
};

}  // namespace oi::cpu
