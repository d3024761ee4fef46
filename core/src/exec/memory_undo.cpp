// A failed step leaves persistent memory as it was (docs/runtime.md "Failed steps"), and the
// table budget (SimulatorOptions::max_table_bytes) is checked before a table grows.
#include <cstring>

#include "memory.hpp"
#include "openinfer/error.hpp"

namespace oi::exec {
namespace {

// A copy that owns its bytes (a view's copy would still point at the viewed memory).
Tensor owned_copy(const Tensor& t) {
  Tensor out(t.dtype(), t.shape());
  if (t.nbytes() > 0) std::memcpy(out.mutable_bytes().data(), t.bytes().data(), t.nbytes());
  return out;
}

}  // namespace

void Memory::note_plain(const VarInfo& v, VarState& s) {
  if (!in_step_ || v.kind != VarKind::Persistent || v.table || v.auto_dim || v.prefix) return;
  std::lock_guard lock(undo_mutex_);
  if (undo_plain_.count(v.id)) return;
  if (s.host_stale) sync_host(s);  // the value before the write may be on a device only
  undo_plain_.emplace(v.id, owned_copy(s.value));
}

Memory::TableUndo* Memory::table_undo(const VarInfo& v, VarState& s) {
  if (!in_step_) return nullptr;
  auto [it, fresh] = undo_tables_.try_emplace(v.id);
  if (fresh) it->second.sizes = s.sizes;
  return &it->second;
}

void Memory::note_entry(const VarInfo& v, VarState& s, const std::vector<int64_t>& key) {
  if (!in_step_) return;
  auto it = s.entries.find(key);
  note_entry(v, s, key, it == s.entries.end() ? nullptr : &it->second);
}

void Memory::note_entry(const VarInfo& v, VarState& s, const std::vector<int64_t>& key,
                        const TableEntry* now) {
  TableUndo* u = table_undo(v, s);
  if (u == nullptr || u->entries.count(key)) return;
  if (now == nullptr) {
    u->entries.emplace(key, std::nullopt);
    return;
  }
  TableEntry old = *now;
  old.value = entry_now(v, s, key, *now);
  u->entries.emplace(key, std::move(old));
}

void Memory::note_erased(const VarInfo& v, VarState& s, std::vector<int64_t> key,
                         TableEntry erased) {
  if (TableUndo* u = table_undo(v, s)) u->entries.try_emplace(std::move(key), std::move(erased));
}

void Memory::rollback() {
  std::lock_guard lock(mutex_);
  for (auto& [id, value] : undo_plain_) {
    VarState& s = *states_[id];
    s.value = std::move(value);
    drop_device(s);
    s.buffer.reset();  // it wrapped the replaced value's bytes
    s.buffer_data = nullptr;
  }
  for (auto& [id, u] : undo_tables_) {
    const VarInfo& v = program_.vars[id];
    VarState& s = *states_[id];
    for (auto& [key, old] : u.entries) {
      if (old) {
        TableEntry& e = s.entries[key] = std::move(*old);
        restore_device_entry(v, s, key, &e.value);
      } else {
        s.entries.erase(key);
        restore_device_entry(v, s, key, nullptr);
      }
    }
    s.sizes = u.sizes;
  }
  commit();
}

void Memory::commit() {
  undo_plain_.clear();
  undo_tables_.clear();
}

uint64_t Memory::table_bytes_of(size_t id) const {
  const VarInfo& v = program_.vars[id];
  if (!v.table && !v.auto_dim) return 0;
  if (!v.auto_dim) {  // entries of one size, whose values may be on a device
    uint64_t numel = 1;
    for (uint64_t d : v.shape) numel *= d;
    return states_[id]->entries.size() * storage_bytes(v.dtype, numel).value_or(0);
  }
  uint64_t total = 0;
  for (const auto& [key, e] : states_[id]->entries) total += e.value.nbytes();
  return total;
}

uint64_t Memory::table_bytes() const {
  uint64_t total = 0;
  for (size_t i = 0; i < states_.size(); ++i) total += table_bytes_of(i);
  return total;
}

void Memory::check_budget(const VarInfo& v, uint64_t added, const SourceLocation& loc) const {
  const uint64_t limit = program_.max_table_bytes;
  if (limit == 0 || added == 0) return;
  const uint64_t total = table_bytes();
  if (total + added <= limit) return;
  throw input_error(
      where(loc) + "table '" + v.name + "' cannot grow from " +
      std::to_string(table_bytes_of(v.id)) + " to " + std::to_string(table_bytes_of(v.id) + added) +
      " bytes: the tables would hold " + std::to_string(total + added) +
      " bytes, over the limit of " + std::to_string(limit) + " bytes (max_table_bytes)");
}

}  // namespace oi::exec
