// The tiny graph generator of exec_run_fuzz: turns fuzz bytes into a small DSL graph, a model
// for it and the inputs of each step. Graphs are meant to be valid but odd: sizes of 0 to 4,
// every broadcasting corner of a [A, B] value against [B] and [] operands, reductions over
// either axis, slices with clamped and negative bounds, table entries at and past their fixed
// bound, loops over a size that may be 0. What fails validation is simply skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "openinfer/model.hpp"
#include "openinfer/tensor.hpp"

namespace oi_fuzz {

// The fuzz bytes, read front to back; zero once used up.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  size_t pick(size_t n) { return byte() % n; }
  bool done() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct GeneratedCase {
  std::string graph;           // DSL text
  oi::ModelWriter model;       // sizevars A, B, W and the volatile y's data
  std::vector<oi::Tensor> xs;  // the dynamic x of each step (1 to 3 steps)
};

// Reads the case from the front of `in`.
GeneratedCase generate_case(ByteReader& in);

// A tensor of `dtype` and `shape` whose elements' raw bits come from `in`.
oi::Tensor tensor_from_bytes(oi::DType dtype, const oi::Shape& shape, ByteReader& in);

}  // namespace oi_fuzz
