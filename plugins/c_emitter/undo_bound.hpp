// The freestanding undo record's size (docs/synth.md "The freestanding profile"): how many
// entries of each table one step can change, counted over the plan when the code is written.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "c_common.hpp"

namespace oi::c_emitter {

inline constexpr uint64_t kManyChanges = UINT64_MAX;  // not known when the code is written

// What the count needs of the generator: the table an access text names (nullopt: no table),
// the entries a write of the access stores (`from`: the variable a copy step stores, else an
// op's output), the entries a reset of it erases, and a loop bound's value where it is known.
struct ChangeSizes {
  std::function<std::optional<std::string>(const std::string& access)> table;
  std::function<uint64_t(const std::string& access, const std::string* from)> written;
  std::function<uint64_t(const std::string& access)> erased;
  std::function<std::optional<int64_t>(const std::string& bound)> bound;
};

// Table -> the entries a step of `plan` (an openinfer-synth-plan) writes or erases, each write
// counted: the writes of entry's steps, a loop's body times its trip count (kManyChanges where a
// bound is known only at run time), a branch's larger side, each consumer of entry's yield.
std::map<std::string, uint64_t> step_changes(const json::value& plan, const ChangeSizes& sizes);

}  // namespace oi::c_emitter
