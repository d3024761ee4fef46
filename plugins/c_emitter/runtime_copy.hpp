// Copy steps (transfer, cache.read, cache.write) neither of whose sides has a shape known before
// run time (docs/synth.md): an @auto_dim matrix (or its part) into another, a persistent
// table's slice of run-time length into a table or a matrix, a matrix into such a slice. As the
// simulator runs them: the source read in its run-time shape (its checks and messages at its
// position), then stored as cache.write stores it (the destination's checks and messages, the
// shapes that differ named, at the destination's position).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "auto_dim.hpp"
#include "c_common.hpp"

namespace oi::c_emitter {

struct RuntimeCopyEnv {
  const KernelEnv& env;  // values and the program's name
  const std::map<std::string, AutoDimDecl>& autodims;
  std::function<std::string(const std::string&)> index_c;  // C of an index name
  std::string stop, indent;                                // goto done / return; the indent
  bool freestanding = false;  // no allocation: a table slice goes through `span_buffer`
  // A state buffer of `bytes` (C: its pointer), for a slice whose sliced indices are @fixed.
  std::function<std::string(uint64_t bytes)> span_buffer;
};

// Where a value of run-time shape is: its bytes, dims and rank (C names).
struct RuntimeBuffer {
  std::string data, dims, rank;
};

// The C that reads the persistent table access `text` (a slice of run-time length) as
// cache.read reads it (its checks and messages at `at`, a failure ending the step with `stop`):
// `out`'s dims and rank set to the slice's stacked lengths and an entry's dims, its data a fresh
// allocation (or `span`, a state buffer of the slice's largest span, where not empty).
std::string table_slice_read(const KernelEnv& env, const std::string& text,
                             const std::function<std::string(const std::string&)>& index_c,
                             const std::string& at, const std::string& stop,
                             const std::string& indent, const RuntimeBuffer& out,
                             const std::string& span = "");

// The C of copy step `st` (its `from`, `to`, `from_at`, `to_at`): either side a plain matrix, a
// table's matrices (one key's, or stacked) or a persistent table's access.
std::string runtime_copy(const RuntimeCopyEnv& e, const json::object& st);

}  // namespace oi::c_emitter
