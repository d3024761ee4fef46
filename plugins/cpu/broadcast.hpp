// Numpy broadcast iteration for elementwise kernels. The host has checked that the inputs
// broadcast to the output's shape; this only computes where each output element reads from.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "openinfer/broadcast.hpp"
#include "openinfer/plugin_abi.h"
#include "parallel.hpp"

namespace oi::cpu {

template <size_t N>
class BroadcastPlan {
 public:
  BroadcastPlan(const oi_tensor_desc& out, const std::array<const oi_tensor_desc*, N>& inputs)
      : dims_(out.dims, out.dims + out.rank) {
    numel_ = 1;
    for (uint64_t d : dims_) numel_ *= d;
    same_shape_ = true;
    for (size_t k = 0; k < N; ++k) {
      const oi_tensor_desc& in = *inputs[k];
      const std::span<const uint64_t> in_dims(in.dims, in.rank);
      // The SDK's strides (openinfer/broadcast.hpp): right-aligned, 0 on axes of size 1.
      strides_[k] = geometry::broadcast_strides(in_dims, dims_);
      if (!std::equal(in_dims.begin(), in_dims.end(), dims_.begin(), dims_.end()))
        same_shape_ = false;
    }
  }

  uint64_t numel() const { return numel_; }
  // Every input has the output's shape: element i reads element i.
  bool same_shape() const { return same_shape_; }

  // Calls run(out_index, in_index[N], in_step[N], count) for contiguous output runs, in
  // parallel for large tensors. in_step is 0 (broadcast) or the input's inner stride.
  template <class Run>
  void for_each_run(Run&& run) const {
    if (numel_ == 0) return;
    if (same_shape_ || dims_.empty()) {
      std::array<uint64_t, N> step;
      step.fill(dims_.empty() ? 0 : 1);
      parallel_ranges(numel_, 1, [&](uint64_t begin, uint64_t end) {
        std::array<uint64_t, N> index;
        index.fill(dims_.empty() ? 0 : begin);
        run(begin, index, step, end - begin);
      });
      return;
    }
    const size_t inner_axis = dims_.size() - 1;
    const uint64_t inner = dims_[inner_axis];
    const uint64_t rows = numel_ / inner;
    std::array<uint64_t, N> step;
    for (size_t k = 0; k < N; ++k) step[k] = strides_[k][inner_axis];
    parallel_ranges(rows, inner, [&](uint64_t row_begin, uint64_t row_end) {
      for (uint64_t row = row_begin; row < row_end; ++row) {
        std::array<uint64_t, N> index{};
        uint64_t rest = row;
        for (size_t axis = inner_axis; axis-- > 0;) {
          uint64_t coord = rest % dims_[axis];
          rest /= dims_[axis];
          for (size_t k = 0; k < N; ++k) index[k] += coord * strides_[k][axis];
        }
        run(row * inner, index, step, inner);
      }
    });
  }

  // The element index of input k for the output element at `out_index` (row-major).
  uint64_t input_index(size_t k, uint64_t out_index) const {
    uint64_t index = 0;
    for (size_t axis = dims_.size(); axis-- > 0;) {
      index += (out_index % dims_[axis]) * strides_[k][axis];
      out_index /= dims_[axis];
    }
    return index;
  }

 private:
  std::vector<uint64_t> dims_;
  std::array<std::vector<uint64_t>, N> strides_;
  uint64_t numel_;
  bool same_shape_;
};

}  // namespace oi::cpu
