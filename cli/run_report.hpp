// What `openinfer run` prints and writes: value summaries, the timing table, --save, JSON files.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "openinfer/simulator.hpp"
#include "openinfer/tensor.hpp"

namespace oi::cli {

// One line: `NAME: DTYPE[DIMS] = { v0, v1, ..., v7, ... }` (the first `max_values` values).
std::string summarize(const std::string& name, const Tensor& value, size_t max_values = 8);

// Per node (block, index), in order of first execution: calls, total and mean time.
void print_timing_table(std::ostream& out, std::span<const ExecEvent> events, uint64_t steps);

// A fetched value of one step.
struct FetchedValue {
  uint64_t step;
  std::string name;
  Tensor value;
};

// --save: NAME for a one-step run; NAME.stepK for every step plus NAME (the last) otherwise.
// Written atomically.
void save_fetched(const std::string& path, const std::vector<FetchedValue>& values, uint64_t steps);

// Writes `text` through a temporary file and a rename: never a partial file.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace oi::cli
