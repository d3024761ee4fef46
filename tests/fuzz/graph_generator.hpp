// The tiny graph generator of exec_run_fuzz: turns fuzz bytes into a small DSL graph, a model
// for it, the inputs of each step and how the executor runs them. Graphs are meant to be valid
// but odd: sizes of 0 to 4, every broadcasting corner of a [A, B] value against [B] and []
// operands, reductions over either axis, op slices with clamped and negative bounds, loops
// (nested, over bounds that may be 0 or negative), branches, yield/await with two consumers,
// scopes, a @fixed table, a growable table and an @auto_dim matrix read and written at,
// across and past their bounds (table slices at both ends, empty slices), a prefix table with
// a missing entry, every cache operation, a table budget, and a device-memory backend beside
// the CPU. What fails validation is simply skipped.
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

// How one step is run.
enum class StepMode {
  step,          // Executor::step()
  iterate,       // node by node with timing, the whole step
  iterate_part,  // node by node, a fetch between events, then step() finishes it
};

struct GeneratedCase {
  std::string graph;            // DSL text
  oi::ModelWriter model;        // sizevars A, B, W, BM; the volatile y and prefix entries p.*
  std::vector<oi::Tensor> xs;   // the dynamic x of each step (1 to 4 steps)
  std::vector<StepMode> modes;  // one per step
  size_t part_events = 0;       // iterate_part: events before the fetch and step()
  // SimulatorOptions::max_table_bytes (0: no limit).
  uint64_t max_table_bytes = 0;
  // Run on the "devmem" fixture (its own memory, the CPU as fallback) instead of the CPU.
  bool device_memory = false;
};

// Reads the case from the front of `in`.
GeneratedCase generate_case(ByteReader& in);

// A tensor of `dtype` and `shape` whose elements' raw bits come from `in`.
oi::Tensor tensor_from_bytes(oi::DType dtype, const oi::Shape& shape, ByteReader& in);

}  // namespace oi_fuzz
