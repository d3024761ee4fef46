// cache.reset of table entries (dsl.md "Blocks and nodes"), header-only in the plugin SDK: which
// accesses name a window of entries. The simulator, the C emitter and the glsl emitter each
// read their own form of an access and ask here, so they agree on what a reset empties.
#pragma once

#include <span>

namespace oi::geometry {

// One table slot of a reset access: a single index (`t`), a whole axis (`..` or an empty slot)
// or a slice with a start or an end (`a..b`, `a..`, `..b`).
enum class ResetSlot { Index, WholeAxis, Bounded };

// A window (its entries emptied exactly as the same access reads them) when among the table
// slots a slice has a start or an end, or a whole axis comes before a single index (`K[, t]`).
// Otherwise the leading single indices choose what is emptied (`K`, `K[]`, `K[l]`, `K[l, t]`).
constexpr bool reset_is_window(std::span<const ResetSlot> table_slots) {
  bool whole_axis = false;
  for (const ResetSlot s : table_slots) {
    if (s == ResetSlot::Bounded) return true;
    if (s == ResetSlot::Index && whole_axis) return true;
    if (s == ResetSlot::WholeAxis) whole_axis = true;
  }
  return false;
}

}  // namespace oi::geometry
