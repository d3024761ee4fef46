// Persistent tables in a device backend's memory (docs/runtime.md, "Device tables"): a kernel
// writes an entry there and a window is copied out of it inside the device, so the entries
// cross the bus only when the host reads them.
#include <algorithm>
#include <cstring>

#include "memory.hpp"
#include "openinfer/error.hpp"
#include "tensor_copy.hpp"

namespace oi::exec {
namespace {

uint64_t linear(const std::vector<int64_t>& key, const std::vector<int64_t>& extents) {
  uint64_t n = 0;
  for (size_t k = 0; k < key.size(); ++k)
    n = n * static_cast<uint64_t>(extents[k]) + static_cast<uint64_t>(key[k]);
  return n;
}

uint64_t count_of(const std::vector<int64_t>& lengths) {
  uint64_t n = 1;
  for (int64_t l : lengths) n *= static_cast<uint64_t>(l);
  return n;
}

// One contiguous copy of `entries` entries: at `table_at` in the table's layout and at
// `access_at` in the access's stacked (row-major) order.
struct Run {
  uint64_t table_at;
  uint64_t access_at;
  uint64_t entries;
};

// The runs of the box starts + [0, lengths) in a table of `extents`: the innermost axis is
// contiguous in both; neighbouring runs are merged.
std::vector<Run> runs_of(const std::vector<int64_t>& starts, const std::vector<int64_t>& lengths,
                         const std::vector<int64_t>& extents) {
  std::vector<Run> runs;
  const size_t n = starts.size();
  if (n == 0 || count_of(lengths) == 0) return runs;
  const auto inner = static_cast<uint64_t>(lengths[n - 1]);
  const uint64_t outer = count_of(lengths) / inner;
  std::vector<int64_t> key = starts;
  for (uint64_t o = 0; o < outer; ++o) {
    uint64_t rest = o;
    for (size_t k = n - 1; k-- > 0;) {
      const auto len = static_cast<uint64_t>(lengths[k]);
      key[k] = starts[k] + static_cast<int64_t>(rest % len);
      rest /= len;
    }
    const uint64_t at = linear(key, extents);
    if (!runs.empty() && runs.back().table_at + runs.back().entries == at) {
      runs.back().entries += inner;
    } else {
      runs.push_back({at, o * inner, inner});
    }
  }
  return runs;
}

uint64_t entry_bytes(const VarInfo& v) {
  uint64_t numel = 1;
  for (uint64_t d : v.shape) numel *= d;
  return storage_bytes(v.dtype, numel).value_or(0);
}

// The access's box over the table axes (starts, lengths) and the extents it needs.
struct Box {
  std::vector<int64_t> starts, lengths, needed;
};

}  // namespace

bool Memory::device_table_capable(const VarInfo& v) const {
  if (!v.table || v.auto_dim || v.prefix || v.table_axes.empty()) return false;
  uint64_t numel = 1;
  for (uint64_t d : v.shape) numel *= d;
  const uint64_t bytes = entry_bytes(v);
  return bytes > 0 && bytes * 8 == numel * dtype_bits(v.dtype);  // entries start on bytes
}

Backend* Memory::table_backend(const VarInfo& v) {
  VarState& s = state(v);
  std::lock_guard lock(mutex_);
  return s.table ? s.table->backend : nullptr;
}

Shape Memory::table_access_shape(const VarInfo& v, const std::vector<SlotValue>& slots,
                                 const SourceLocation& loc) {
  VarState& s = state(v);
  std::lock_guard lock(mutex_);
  Shape shape;
  for (const Range& r : table_ranges(v, s, slots, loc))
    if (!r.single) shape.push_back(static_cast<uint64_t>(r.end - r.start));
  shape.insert(shape.end(), v.shape.begin(), v.shape.end());
  return shape;
}

void Memory::sync_table(const VarInfo& v, VarState& s) {
  if (!s.table || !s.table->host_stale) return;
  DeviceTable& t = *s.table;
  std::vector<std::byte> all(t.buffer->size());
  t.backend->download(*t.buffer, 0, all);
  for (auto& [key, e] : s.entries) {
    if (e.value.dtype() != v.dtype || e.value.shape() != v.shape || e.value.is_view())
      e.value = Tensor(v.dtype, v.shape);
    std::memcpy(e.value.mutable_bytes().data(), all.data() + linear(key, t.extents) * t.entry_bytes,
                t.entry_bytes);
  }
  t.host_stale = false;
}

DeviceTable& Memory::device_table(const VarInfo& v, VarState& s, Backend& backend,
                                  const std::vector<int64_t>& needed) {
  if (s.table && s.table->backend != &backend) {  // another device's: through the host
    sync_table(v, s);
    s.table.reset();
  }
  const size_t n = v.table_axes.size();
  std::vector<int64_t> need = needed;
  if (!s.table) {
    for (const auto& [key, e] : s.entries)
      for (size_t k = 0; k < n; ++k) need[k] = std::max(need[k], key[k] + 1);
  }
  std::vector<int64_t> extents(n, 0);
  bool grows = !s.table;
  for (size_t k = 0; k < n; ++k) {
    const int64_t have = s.table ? s.table->extents[k] : 0;
    extents[k] = have;
    if (need[k] <= have) continue;
    // Doubling keeps the copies on growth to a constant factor of the final size; a @fixed
    // bound caps it (table_ranges has checked that no index passes the bound).
    int64_t e = std::max<int64_t>({need[k], 2 * have, 16});
    if (const auto& bound = v.bound[v.table_axes[k]]) e = std::min(e, *bound);
    extents[k] = std::max(e, need[k]);
    grows = true;
  }
  if (!grows) return *s.table;

  const uint64_t eb = entry_bytes(v);
  const uint64_t count = count_of(extents);
  uint64_t numel = 1;
  for (uint64_t d : v.shape) numel *= d;
  // Every place starts as unwritten (@init), then keeps what it held.
  Tensor image = filled_tensor(v.dtype, Shape{count * numel}, v.decl ? v.decl->init : std::nullopt);
  if (!s.table) {
    for (const auto& [key, e] : s.entries) {
      if (e.value.nbytes() != eb) continue;  // cannot happen: host values are current here
      std::memcpy(image.mutable_bytes().data() + linear(key, extents) * eb, e.value.bytes().data(),
                  eb);
    }
  }
  auto fresh = std::make_unique<DeviceTable>();
  fresh->backend = &backend;
  fresh->extents = extents;
  fresh->entry_bytes = eb;
  fresh->buffer = backend.alloc(count * eb);
  backend.upload(*fresh->buffer, 0, image.bytes());
  if (s.table) {
    DeviceTable& old = *s.table;
    // The old table is the box [0, old extents) of the new one, row-major in its own buffer.
    for (const Run& r : runs_of(std::vector<int64_t>(n, 0), old.extents, extents)) {
      backend.copy(*old.buffer, r.access_at * eb, *fresh->buffer, r.table_at * eb, r.entries * eb);
    }
    fresh->host_stale = old.host_stale;
    fresh->staging = std::move(old.staging);
  }
  s.table = std::move(fresh);
  return *s.table;
}

void Memory::upload_entries(const VarInfo& v, VarState& s,
                            const std::vector<std::vector<int64_t>>& keys) {
  if (!s.table || keys.empty()) return;
  std::vector<int64_t> needed(v.table_axes.size(), 0);
  for (const auto& key : keys)
    for (size_t k = 0; k < key.size(); ++k) needed[k] = std::max(needed[k], key[k] + 1);
  DeviceTable& t = device_table(v, s, *s.table->backend, needed);
  for (const auto& key : keys) {
    const Tensor& value = s.entries.at(key).value;
    t.backend->upload(*t.buffer, linear(key, t.extents) * t.entry_bytes, value.bytes());
  }
}

void Memory::reset_device_entries(const VarInfo& v, VarState& s,
                                  const std::vector<std::pair<int64_t, int64_t>>& box) {
  if (!s.table) return;
  if (box.empty()) {  // the whole table: it starts again on the host
    s.table.reset();
    return;
  }
  DeviceTable& t = *s.table;
  const size_t n = v.table_axes.size();
  std::vector<int64_t> starts(n, 0), lengths = t.extents;
  for (size_t k = 0; k < box.size() && k < n; ++k) {
    // only the part with room: nothing was written past the extents
    const int64_t end = std::min(box[k].second, t.extents[k]);
    if (box[k].first >= end) return;
    starts[k] = box[k].first;
    lengths[k] = end - box[k].first;
  }
  uint64_t numel = 1;
  for (uint64_t d : v.shape) numel *= d;
  for (const Run& r : runs_of(starts, lengths, t.extents)) {
    Tensor unwritten =
        filled_tensor(v.dtype, Shape{r.entries * numel}, v.decl ? v.decl->init : std::nullopt);
    t.backend->upload(*t.buffer, r.table_at * t.entry_bytes, unwritten.bytes());
  }
}

void Memory::write_table_device(const VarInfo& v, const std::vector<SlotValue>& slots,
                                Backend& backend, const DeviceBuffer& src, uint64_t src_offset,
                                const SourceLocation& loc) {
  VarState& s = state(v);
  std::lock_guard lock(mutex_);
  Box box;
  for (const Range& r : table_ranges(v, s, slots, loc)) {
    box.starts.push_back(r.start);
    box.lengths.push_back(r.end - r.start);
    box.needed.push_back(r.end > r.start ? r.end : 0);
  }
  const uint64_t eb = entry_bytes(v);
  const uint64_t total = count_of(box.lengths) * eb;
  if (src_offset > src.size() || total > src.size() - src_offset) {
    throw input_error(where(loc) + "table '" + v.name + "': a device value of " +
                      std::to_string(src.size() - std::min(src_offset, src.size())) +
                      " bytes cannot fill " + std::to_string(total) + " bytes of entries");
  }
  if (total == 0) return;
  const size_t n = box.starts.size();
  // Each key with where it is in the entries (or goes: the place after it): one search of the
  // map per key, which a decode step pays for every K/V entry it writes.
  struct Key {
    std::vector<int64_t> key;
    decltype(s.entries)::iterator at;
    bool fresh;
  };
  std::vector<Key> keys;
  uint64_t fresh = 0;
  for (uint64_t i = 0, all = count_of(box.lengths); i < all; ++i) {
    std::vector<int64_t> key(n);
    uint64_t rest = i;
    for (size_t k = n; k-- > 0;) {
      const auto len = static_cast<uint64_t>(box.lengths[k]);
      key[k] = box.starts[k] + static_cast<int64_t>(rest % len);
      rest /= len;
    }
    const auto at = s.entries.lower_bound(key);
    const bool is_new = at == s.entries.end() || at->first != key;
    fresh += is_new ? 1 : 0;
    keys.push_back({std::move(key), at, is_new});
  }
  check_budget(v, fresh * eb, loc);  // before the device table grows
  for (const Key& k : keys) note_entry(v, s, k.key, k.fresh ? nullptr : &k.at->second);
  DeviceTable& t = device_table(v, s, backend, box.needed);
  for (const Run& r : runs_of(box.starts, box.lengths, t.extents))
    backend.copy(src, src_offset + r.access_at * eb, *t.buffer, r.table_at * eb, r.entries * eb);
  // The written keys and sizes stay on the host; their values are now the device's.
  for (Key& k : keys) {
    for (size_t a = 0; a < n; ++a) s.sizes[a] = std::max(s.sizes[a], k.key[a] + 1);
    if (k.fresh) s.entries.emplace_hint(k.at, std::move(k.key), TableEntry{});
  }
  t.host_stale = true;
}

bool Memory::read_table_device(const VarInfo& v, const std::vector<SlotValue>& slots,
                               Backend& backend, DeviceBuffer& dst, const SourceLocation& loc) {
  VarState& s = state(v);
  std::lock_guard lock(mutex_);
  if (!s.table || s.table->backend != &backend) return false;
  Box box;
  for (const Range& r : table_ranges(v, s, slots, loc)) {
    box.starts.push_back(r.start);
    box.lengths.push_back(r.end - r.start);
    box.needed.push_back(r.end > r.start ? r.end : 0);
  }
  const uint64_t eb = entry_bytes(v);
  if (count_of(box.lengths) * eb != dst.size()) return false;
  // Places past the capacity were never written: growing gives them their @init value.
  DeviceTable& t = device_table(v, s, backend, box.needed);
  for (const Run& r : runs_of(box.starts, box.lengths, t.extents))
    backend.copy(*t.buffer, r.table_at * eb, dst, r.access_at * eb, r.entries * eb);
  return true;
}

namespace {
bool has_room(const std::vector<int64_t>& key, const std::vector<int64_t>& extents) {
  for (size_t k = 0; k < key.size(); ++k)
    if (key[k] >= extents[k]) return false;
  return true;
}
}  // namespace

Tensor Memory::entry_now(const VarInfo& v, VarState& s, const std::vector<int64_t>& key,
                         const TableEntry& e) {
  if (!s.table || !s.table->host_stale || !has_room(key, s.table->extents)) {
    Tensor out(e.value.dtype(), e.value.shape());
    if (e.value.nbytes() > 0)
      std::memcpy(out.mutable_bytes().data(), e.value.bytes().data(), e.value.nbytes());
    return out;
  }
  const DeviceTable& t = *s.table;
  Tensor out(v.dtype, v.shape);
  t.backend->download(*t.buffer, linear(key, t.extents) * t.entry_bytes, out.mutable_bytes());
  return out;
}

void Memory::restore_device_entry(const VarInfo& v, VarState& s, const std::vector<int64_t>& key,
                                  const Tensor* value) {
  if (!s.table || !has_room(key, s.table->extents)) return;
  const DeviceTable& t = *s.table;
  const uint64_t at = linear(key, t.extents) * t.entry_bytes;
  if (value != nullptr && value->nbytes() == t.entry_bytes) {
    t.backend->upload(*t.buffer, at, value->bytes());
    return;
  }
  Tensor unwritten = filled_tensor(v.dtype, v.shape, v.decl ? v.decl->init : std::nullopt);
  t.backend->upload(*t.buffer, at, unwritten.bytes());
}

std::shared_ptr<DeviceBuffer> Memory::table_staging(const VarInfo& v, Backend& backend,
                                                    uint64_t bytes) {
  VarState& s = state(v);
  std::lock_guard lock(mutex_);
  if (!s.table || s.table->backend != &backend) return backend.alloc(bytes);
  auto& staging = s.table->staging;
  if (!staging || staging->size() != bytes) staging = backend.alloc(bytes);
  return staging;
}

}  // namespace oi::exec
