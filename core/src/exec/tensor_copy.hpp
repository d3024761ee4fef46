// Element copies between tensors of one dtype (packed dtypes included) and @init fills: what
// table stacking, auto_dim growth and slices are made of.
#pragma once

#include <optional>
#include <span>

#include "openinfer/graph.hpp"
#include "openinfer/tensor.hpp"

namespace oi::exec {

// A tensor of `shape` with every element `init` (zeros without one).
Tensor filled_tensor(DType dtype, const Shape& shape, const std::optional<Value>& init);

// Copies `count` elements from flat position src_offset of src to dst_offset of dst.
void copy_elements(const Tensor& src, uint64_t src_offset, Tensor& dst, uint64_t dst_offset,
                   uint64_t count);

// Copies the box of `extent` at src_start in src to dst_start in dst (same rank and dtype).
void copy_region(const Tensor& src, std::span<const uint64_t> src_start, Tensor& dst,
                 std::span<const uint64_t> dst_start, std::span<const uint64_t> extent);

// The value of an integer or bool scalar.
int64_t scalar_int(const Tensor& t);

}  // namespace oi::exec
