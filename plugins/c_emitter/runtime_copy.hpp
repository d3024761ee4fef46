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

// The C of copy step `st` (its `from`, `to`, `from_at`, `to_at`): either side a plain matrix, a
// table's matrices (one key's, or stacked) or a persistent table's access.
std::string runtime_copy(const RuntimeCopyEnv& e, const json::object& st);

}  // namespace oi::c_emitter
