// Variable lifetimes and lazy loading (dsl.md "Memory").
#include "memory.hpp"

#include <cstring>

#include "openinfer/error.hpp"
#include "openinfer/reset_window.hpp"
#include "tensor_copy.hpp"

namespace oi::exec {
namespace {

Tensor metadata_scalar(const Model& model, const VarInfo& v) {
  MetaValue meta = model.metadata_value(v.link);
  if (meta.kind != MetaValue::Kind::Scalar) {
    throw input_error("metadata entry '" + v.link + "' linked to '" + v.name + "' is not a scalar");
  }
  if (meta.tensor.dtype() == v.dtype) return meta.tensor;
  Tensor t(v.dtype, Shape{});
  if (is_float(meta.tensor.dtype())) {
    t.set_float(0, meta.tensor.get_float(0));
  } else {
    t.set_int(0, meta.tensor.get_int(0));
  }
  return t;
}

std::string prefix_name(const VarInfo& v, const std::vector<int64_t>& index) {
  std::string name;
  if (v.decl->pattern) {
    name = *v.decl->pattern;
    for (size_t i = 0; i < v.indices.size(); ++i) {
      std::string key = "{" + v.indices[i] + "}";
      for (size_t at = name.find(key); at != std::string::npos; at = name.find(key, at))
        name.replace(at, key.size(), std::to_string(index[i]));
    }
  } else {
    name = v.link;
    for (int64_t i : index) name += "." + std::to_string(i);
  }
  return name;
}

std::string index_text(const VarInfo& v, const std::vector<int64_t>& index) {
  std::string out = v.name + "[";
  for (size_t i = 0; i < index.size(); ++i) out += (i ? ", " : "") + std::to_string(index[i]);
  return out + "]";
}

uint64_t product(const Shape& s) {
  uint64_t n = 1;
  for (uint64_t d : s) n *= d;
  return n;
}

}  // namespace

Memory::Memory(const Program& program) : program_(program) {
  for (const VarInfo& v : program.vars) {
    states_.push_back(std::make_unique<VarState>());
    states_.back()->sizes.assign(v.table_axes.size(), 0);
  }
}

Tensor Memory::initial_value(const VarInfo& v, const SourceLocation& loc) const {
  if (v.kind == VarKind::Temporary) return Tensor(v.dtype, v.shape);
  if (v.kind == VarKind::Dynamic) {
    throw input_error(where(loc) + "dynamic variable '" + v.name +
                      "' was not inserted for this step (insert it before every step)");
  }
  const Model& model = program_.model;
  if (const TensorEntry* entry = model.find_tensor(v.link)) {
    if (entry->dtype != v.dtype || entry->dims != v.shape) {
      throw input_error(where(loc) + "model tensor '" + v.link + "' is " +
                        std::string(dtype_name(entry->dtype)) + shape_to_string(entry->dims) +
                        " but '" + v.name + "' is declared " + std::string(dtype_name(v.dtype)) +
                        shape_to_string(v.shape));
    }
    // A declaration without data only defines the buffer (oinf.md): @init, if any, fills it.
    if (entry->has_data || !v.decl || !v.decl->init) return model.tensor(*entry);
  }
  if (v.shape.empty() && model.find_metadata(v.link) != nullptr) return metadata_scalar(model, v);
  if (v.kind == VarKind::Constant && !v.decl->init) {
    throw input_error(where(loc) + "constant '" + v.name + "' has no model entry '" + v.link +
                      "' and no @init");
  }
  return filled_tensor(v.dtype, v.shape, v.decl->init);
}

bool Memory::has_value(const VarInfo& v) const {
  uint64_t e = states_[v.id]->epoch.load(std::memory_order_acquire);
  if (v.kind == VarKind::Dynamic) return e != 0 && (e == epoch_ || e == epoch_ + 1);
  return true;
}

const Tensor& Memory::read(const VarInfo& v, const SourceLocation& loc, HostSync sync) {
  VarState& s = state(v);
  const Tensor& t = current(v, s, loc);
  if (sync == HostSync::Yes && s.host_stale) sync_host(s);
  return t;
}

const Tensor& Memory::current(const VarInfo& v, VarState& s, const SourceLocation& loc) {
  uint64_t e = s.epoch.load(std::memory_order_acquire);
  uint64_t cur = epoch_;
  switch (v.kind) {
    case VarKind::Dynamic:
      if (e == cur || (!in_step_ && e == cur + 1 && e != 0)) return s.value;
      if (!in_step_ && e != 0) return s.value;  // a fetch after the step shows what it left
      throw input_error(where(loc) + "dynamic variable '" + v.name +
                        "' was not inserted for this step (insert it before every step)");
    case VarKind::Volatile:
    case VarKind::Temporary:
      if (e == cur) return s.value;
      break;
    case VarKind::Constant:
    case VarKind::Persistent:
      if (e == kLoaded) return s.value;
      break;
  }
  std::lock_guard lock(mutex_);
  e = s.epoch.load(std::memory_order_acquire);
  bool once = v.kind == VarKind::Constant || v.kind == VarKind::Persistent;
  if (e != (once ? kLoaded : cur)) {
    if (v.kind == VarKind::Temporary && e != 0 && !s.value.is_view() &&
        s.value.dtype() == v.dtype && s.value.shape() == v.shape) {
      // The step's zeros in the storage it had: a new one every step would be a large
      // allocation (mapped and faulted in afresh) for every temporary of the step.
      // (A zero-sized value has no storage to clear: memset may not be given its null.)
      const std::span<std::byte> bytes = s.value.mutable_bytes();
      if (!bytes.empty()) std::memset(bytes.data(), 0, bytes.size());
    } else {
      s.value = initial_value(v, loc);
    }
    drop_device(s);
    s.epoch.store(once ? kLoaded : cur, std::memory_order_release);
  }
  return s.value;
}

void Memory::sync_host(VarState& s) {
  std::lock_guard lock(s.device_mutex);
  if (!s.host_stale) return;
  s.device_backend->download(*s.device, 0, s.value.mutable_bytes());
  s.host_stale = false;
}

void Memory::drop_device(VarState& s) {
  s.device_valid = false;  // the buffer stays for the next kernel output of the same size
  s.host_stale = false;
}

void Memory::adopt_device(VarState& s, std::shared_ptr<DeviceBuffer> buffer, Backend& backend) {
  std::lock_guard lock(s.device_mutex);
  s.device = std::move(buffer);
  s.device_backend = &backend;
  s.device_valid = true;
  s.host_stale = true;
}

void Memory::share_device(VarState& s, std::shared_ptr<DeviceBuffer> buffer, Backend& backend) {
  std::lock_guard lock(s.device_mutex);
  s.device = std::move(buffer);
  s.device_backend = &backend;
  s.device_valid = true;
  s.host_stale = false;
}

Tensor& Memory::write(const VarInfo& v, const SourceLocation& loc, HostSync sync) {
  if (v.kind == VarKind::Constant) {
    throw input_error(where(loc) + "constant '" + v.name + "' cannot be written");
  }
  VarState& s = state(v);
  if (v.kind == VarKind::Dynamic && s.epoch.load(std::memory_order_acquire) != epoch_) {
    s.value = Tensor(v.dtype, v.shape);  // a block writes a dynamic the host did not insert
    drop_device(s);
    s.epoch.store(epoch_, std::memory_order_release);
    return s.value;
  }
  read(v, loc, sync);
  note_plain(v, s);
  if (sync == HostSync::Yes) drop_device(s);  // the host changes the value
  return s.value;
}

Tensor& Memory::replace(const VarInfo& v, const SourceLocation& loc) {
  VarState& s = state(v);
  if (v.kind == VarKind::Constant || v.kind == VarKind::Dynamic) return write(v, loc);
  current(v, s, loc);
  note_plain(v, s);
  std::lock_guard lock(s.device_mutex);
  drop_device(s);
  return s.value;
}

void Memory::insert(const VarInfo& v, Tensor value) {
  VarState& s = state(v);
  s.value = std::move(value);
  drop_device(s);
  s.epoch.store(epoch_ + 1, std::memory_order_release);
}

const Tensor& Memory::prefix_entry(const VarInfo& v, const std::vector<int64_t>& index,
                                   const SourceLocation& loc) {
  VarState& s = state(v);
  uint64_t want = v.kind == VarKind::Constant ? kLoaded : epoch_.load();
  std::lock_guard lock(mutex_);
  // One index (a layer's weights, W[l]): the entry found by position, not by a search of the
  // map keyed by index vectors, which every weight read of a step would pay.
  const bool flat = index.size() == 1 && index[0] >= 0 && index[0] < kFlatPrefixEntries;
  const auto pos = flat ? static_cast<size_t>(index[0]) : 0;
  TableEntry* found = flat && pos < s.prefix_flat.size() ? s.prefix_flat[pos] : nullptr;
  TableEntry& e = found != nullptr ? *found : s.entries[index];
  if (e.epoch == want) return e.value;
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0) {
      throw input_error(where(loc) + "prefix table '" + v.name + "': index " + v.indices[i] +
                        " = " + std::to_string(index[i]) + " is negative");
    }
  }
  std::string name = prefix_name(v, index);
  const TensorEntry* entry = program_.model.find_tensor(name);
  if (entry == nullptr) {
    s.entries.erase(index);
    throw input_error(where(loc) + "prefix table entry " + index_text(v, index) +
                      " is model tensor '" + name + "', which model '" + program_.model.origin() +
                      "' lacks");
  }
  if (entry->dtype != v.dtype || entry->dims != v.shape) {
    s.entries.erase(index);
    throw input_error(where(loc) + "model tensor '" + name + "' is " +
                      std::string(dtype_name(entry->dtype)) + shape_to_string(entry->dims) +
                      " but prefix table '" + v.name + "' declares " +
                      std::string(dtype_name(v.dtype)) + shape_to_string(v.shape));
  }
  e.value = program_.model.tensor(*entry);
  e.epoch = want;
  if (flat) {  // map nodes stay where they are; prefix entries are never erased once loaded
    if (s.prefix_flat.size() <= pos) s.prefix_flat.resize(pos + 1, nullptr);
    s.prefix_flat[pos] = &e;
  }
  return e.value;
}

// ---- tables --------------------------------------------------------------------------------

std::vector<Memory::Range> Memory::table_ranges(const VarInfo& v, VarState& s,
                                                const std::vector<SlotValue>& slots,
                                                const SourceLocation& loc) const {
  std::vector<Range> out;
  for (size_t k = 0; k < v.table_axes.size(); ++k) {
    size_t pos = v.table_axes[k];
    const std::string& idx = v.indices[pos];
    const auto& bound = v.bound[pos];
    int64_t size = bound ? *bound : s.sizes[k];
    SlotValue slot = pos < slots.size() ? slots[pos] : SlotValue{};
    Range r;
    if (slot.kind == Slot::Kind::Index) {
      r = {true, slot.index, slot.index + 1};
      if (slot.index < 0) {
        throw input_error(where(loc) + "table '" + v.name + "': index " + idx + " = " +
                          std::to_string(slot.index) + " is negative");
      }
      if (bound && slot.index >= *bound) {
        throw input_error(where(loc) + "table '" + v.name + "': index " + idx + " = " +
                          std::to_string(slot.index) + " exceeds its @fixed bound " + idx + "=" +
                          std::to_string(*bound));
      }
    } else {
      r.start = slot.start.value_or(0);
      r.end = slot.end ? (*slot.end < 0 ? size + *slot.end : *slot.end) : size;
      if (r.start < 0) {
        throw input_error(where(loc) + "table '" + v.name + "': slice start " +
                          std::to_string(r.start) + " of index " + idx + " is negative");
      }
      if (bound && r.end > *bound) {
        throw input_error(where(loc) + "table '" + v.name + "': slice end " +
                          std::to_string(r.end) + " of index " + idx +
                          " exceeds its @fixed bound " + idx + "=" + std::to_string(*bound));
      }
      if (r.end < r.start) r.end = r.start;
    }
    out.push_back(r);
  }
  return out;
}

Shape Memory::matrix_shape(const VarInfo& v, const std::vector<uint64_t>& counts) const {
  Shape shape = v.shape;
  for (size_t k = 0; k < counts.size() && k < shape.size(); ++k) shape[k] += counts[k];
  return shape;
}

namespace {

// Every key a table access visits, row-major over its sliced table indices.
std::vector<std::vector<int64_t>> keys_of(const std::vector<int64_t>& starts,
                                          const std::vector<int64_t>& lengths) {
  std::vector<std::vector<int64_t>> keys;
  uint64_t total = 1;
  for (int64_t n : lengths) total *= static_cast<uint64_t>(n);
  for (uint64_t n = 0; n < total; ++n) {
    std::vector<int64_t> key(starts.size());
    uint64_t rest = n;
    for (size_t k = starts.size(); k-- > 0;) {
      const auto len = static_cast<uint64_t>(lengths[k]);
      key[k] = starts[k] + static_cast<int64_t>(rest % len);
      rest /= len;
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

std::string key_text(const std::vector<int64_t>& key) {
  std::string s = "[";
  for (size_t i = 0; i < key.size(); ++i) s += (i ? ", " : "") + std::to_string(key[i]);
  return s + "]";
}

}  // namespace

TableEntry& Memory::auto_entry_at(const VarInfo& v, VarState& s, const std::vector<int64_t>& key,
                                  const SourceLocation& loc) {
  note_entry(v, s, key);  // a later grow or write of this matrix changes only what it noted
  if (s.entries.count(key) == 0)
    check_budget(v, storage_bytes(v.dtype, product(v.shape)).value_or(0), loc);
  for (size_t k = 0; k < key.size(); ++k) s.sizes[k] = std::max(s.sizes[k], key[k] + 1);
  auto [it, fresh] = s.entries.try_emplace(key);
  if (fresh) {
    it->second.counts.assign(v.auto_axes.size(), 0);
    it->second.value = filled_tensor(v.dtype, v.shape, v.decl->init);
  }
  return it->second;
}

Tensor Memory::auto_part(const VarInfo& v, TableEntry& e, const std::vector<SlotValue>& slots,
                         const SourceLocation& loc) {
  auto box = auto_box(v, e, slots, loc);
  if (!box) {
    grow(v, e, slots, loc);
    return e.value;
  }
  Tensor out(v.dtype, box->second);
  copy_region(e.value, box->first, out, Shape(out.rank(), 0), box->second);
  return out;
}

// An auto_dim table read: one matrix (or its part) per visited table key, stacked along the
// sliced table indices. The parts must agree in shape: matrices that grew differently stack only
// where the access selects equal boxes.
Tensor Memory::read_auto_dim(const VarInfo& v, VarState& s, const std::vector<SlotValue>& slots,
                             const SourceLocation& loc) {
  auto ranges = table_ranges(v, s, slots, loc);
  std::vector<int64_t> starts, lengths;
  Shape lead;
  for (const Range& r : ranges) {
    starts.push_back(r.start);
    lengths.push_back(r.single ? 1 : r.end - r.start);
    if (!r.single) lead.push_back(static_cast<uint64_t>(r.end - r.start));
  }
  const bool stacked = lead.size() > 0;
  if (!stacked) return auto_part(v, auto_entry_at(v, s, starts, loc), slots, loc);
  bool grows = true;
  for (size_t pos : v.auto_axes)
    grows = grows && pos < slots.size() && slots[pos].kind == Slot::Kind::Index;
  std::optional<Shape> part_shape;
  std::vector<Tensor> parts;
  std::vector<int64_t> first_key;
  for (const auto& key : keys_of(starts, lengths)) {
    auto it = s.entries.find(key);
    TableEntry fresh;  // slices never grow: an unwritten entry reads as a fresh matrix
    TableEntry* e = it != s.entries.end() ? &it->second : nullptr;
    if (!e && grows)
      e = &auto_entry_at(v, s, key, loc);  // scalar auto indices grow what they visit
    if (!e) {
      fresh = {filled_tensor(v.dtype, v.shape, v.decl->init),
               std::vector<uint64_t>(v.auto_axes.size(), 0), 0};
      e = &fresh;
    }
    Tensor part = auto_part(v, *e, slots, loc);
    if (part_shape && part.shape() != *part_shape) {
      throw input_error(where(loc) + "auto_dim table '" + v.name + "': entry " + key_text(key) +
                        " gives shape " + shape_to_string(part.shape()) + " but entry " +
                        key_text(first_key) + " gives " + shape_to_string(*part_shape) +
                        ", so they cannot be stacked (slice the matrices to equal parts)");
    }
    if (!part_shape) {
      part_shape = part.shape();
      first_key = key;
    }
    parts.push_back(std::move(part));
  }
  Shape shape = lead;
  const Shape& inner = part_shape ? *part_shape : v.shape;
  shape.insert(shape.end(), inner.begin(), inner.end());
  Tensor out(v.dtype, shape);
  const uint64_t numel = product(inner);
  for (size_t n = 0; n < parts.size(); ++n) copy_elements(parts[n], 0, out, n * numel, numel);
  return out;
}

// The inverse of read_auto_dim: entry n of the stacked value goes to the n-th visited matrix.
void Memory::write_auto_dim(const VarInfo& v, VarState& s, const std::vector<SlotValue>& slots,
                            const Tensor& value, const SourceLocation& loc) {
  auto ranges = table_ranges(v, s, slots, loc);
  std::vector<int64_t> starts, lengths;
  Shape lead;
  for (const Range& r : ranges) {
    starts.push_back(r.start);
    lengths.push_back(r.single ? 1 : r.end - r.start);
    if (!r.single) lead.push_back(static_cast<uint64_t>(r.end - r.start));
  }
  const size_t lead_rank = lead.size();
  const auto keys = keys_of(starts, lengths);
  if (value.rank() < lead_rank || !std::equal(lead.begin(), lead.end(), value.shape().begin())) {
    throw input_error(where(loc) + "cannot store a value of shape " +
                      shape_to_string(value.shape()) + " into " + std::to_string(keys.size()) +
                      " entries of auto_dim table '" + v.name + "'");
  }
  const Shape inner(value.shape().begin() + static_cast<std::ptrdiff_t>(lead_rank),
                    value.shape().end());
  const uint64_t numel = product(inner);
  for (size_t n = 0; n < keys.size(); ++n) {
    TableEntry& e = auto_entry_at(v, s, keys[n], loc);
    auto box = auto_box(v, e, slots, loc);
    if (!box) grow(v, e, slots, loc);
    const Shape target = box ? box->second : e.value.shape();
    if (inner != target) {
      const std::string entry = lead_rank > 0 ? " entry " + key_text(keys[n]) : "";
      throw input_error(where(loc) + "cannot store a value of shape " +
                        shape_to_string(value.shape()) +
                        (box ? " into a part of '" + v.name + "'" + entry + " of shape "
                             : " as auto_dim '" + v.name + "'" + entry + " of current shape ") +
                        shape_to_string(target));
    }
    Tensor part(v.dtype, inner);
    copy_elements(value, n * numel, part, 0, numel);
    if (box)
      copy_region(part, Shape(part.rank(), 0), e.value, box->first, box->second);
    else
      e.value = std::move(part);
  }
}

void Memory::grow(const VarInfo& v, TableEntry& e, const std::vector<SlotValue>& slots,
                  const SourceLocation& loc) {
  std::vector<uint64_t> counts = e.counts;
  for (size_t k = 0; k < v.auto_axes.size(); ++k) {
    size_t pos = v.auto_axes[k];
    int64_t i = slots[pos].index;
    if (i < 0) {
      throw input_error(where(loc) + "auto_dim '" + v.name + "': index " + v.indices[pos] + " = " +
                        std::to_string(i) + " is negative");
    }
    if (v.bound[pos] && i > *v.bound[pos]) {
      throw input_error(where(loc) + "auto_dim '" + v.name + "': count " + v.indices[pos] + " = " +
                        std::to_string(i) + " exceeds its @fixed bound " + v.indices[pos] + "=" +
                        std::to_string(*v.bound[pos]));
    }
    counts[k] = std::max(counts[k], static_cast<uint64_t>(i));
  }
  if (counts == e.counts) return;
  const uint64_t after = storage_bytes(v.dtype, product(matrix_shape(v, counts))).value_or(0);
  if (after > e.value.nbytes()) check_budget(v, after - e.value.nbytes(), loc);
  Tensor grown = filled_tensor(v.dtype, matrix_shape(v, counts), v.decl->init);
  Shape zero(grown.rank(), 0);
  copy_region(e.value, zero, grown, zero, e.value.shape());
  e.value = std::move(grown);
  e.counts = std::move(counts);
}

std::optional<std::pair<Shape, Shape>> Memory::auto_box(const VarInfo& v, const TableEntry& e,
                                                        const std::vector<SlotValue>& slots,
                                                        const SourceLocation& loc) const {
  bool scalar = true;
  for (size_t pos : v.auto_axes)
    scalar = scalar && pos < slots.size() && slots[pos].kind == Slot::Kind::Index;
  if (scalar) return std::nullopt;
  Shape start(e.value.rank(), 0), extent = e.value.shape();
  for (size_t k = 0; k < v.auto_axes.size() && k < start.size(); ++k) {
    size_t pos = v.auto_axes[k];
    SlotValue slot = pos < slots.size() ? slots[pos] : SlotValue{};
    int64_t size = static_cast<int64_t>(e.value.shape()[k]);
    int64_t a = 0, b = size;
    if (slot.kind == Slot::Kind::Index) {
      a = slot.index;
      b = a + 1;
    } else if (slot.kind == Slot::Kind::Range) {
      a = slot.start.value_or(0);
      b = slot.end ? (*slot.end < 0 ? size + *slot.end : *slot.end) : size;
    }
    if (a < 0 || b > size || a > b) {
      throw input_error(where(loc) + "auto_dim '" + v.name + "': range " + std::to_string(a) +
                        ".." + std::to_string(b) + " of " + v.indices[pos] +
                        " is outside the current " + std::to_string(size) + " rows/columns");
    }
    start[k] = static_cast<uint64_t>(a);
    extent[k] = static_cast<uint64_t>(b - a);
  }
  return std::make_pair(start, extent);
}

std::shared_ptr<VarState> Memory::table_snapshot(const VarInfo& v) {
  VarState& s = state(v);
  std::lock_guard lock(mutex_);
  sync_table(v, s);
  auto copy = std::make_shared<VarState>();
  copy->value = s.value;
  copy->entries = s.entries;  // owned values copied, model views shared (never written)
  copy->sizes = s.sizes;
  return copy;
}

Tensor Memory::read_table(const VarInfo& v, const std::vector<SlotValue>& slots,
                          const SourceLocation& loc, VarState* from) {
  VarState& s = from != nullptr ? *from : state(v);
  std::lock_guard lock(mutex_);
  if (v.auto_dim) return read_auto_dim(v, s, slots, loc);
  sync_table(v, s);  // the device's entries, when newer
  auto ranges = table_ranges(v, s, slots, loc);
  Shape shape;
  for (const Range& r : ranges)
    if (!r.single) shape.push_back(static_cast<uint64_t>(r.end - r.start));
  uint64_t stacked = product(shape);
  shape.insert(shape.end(), v.shape.begin(), v.shape.end());
  Tensor out(v.dtype, shape);
  uint64_t entry_numel = product(v.shape);
  std::optional<Tensor> unwritten;
  std::vector<int64_t> key(ranges.size());
  for (uint64_t n = 0; n < stacked; ++n) {
    uint64_t rest = n;
    for (size_t k = ranges.size(); k-- > 0;) {
      uint64_t len = static_cast<uint64_t>(ranges[k].end - ranges[k].start);
      if (ranges[k].single) {
        key[k] = ranges[k].start;
      } else {
        key[k] = ranges[k].start + static_cast<int64_t>(rest % len);
        rest /= len;
      }
    }
    auto it = s.entries.find(key);
    const Tensor* src = nullptr;
    if (it != s.entries.end()) {
      src = &it->second.value;
    } else {
      if (!unwritten) unwritten = filled_tensor(v.dtype, v.shape, v.decl->init);
      src = &*unwritten;
    }
    copy_elements(*src, 0, out, n * entry_numel, entry_numel);
  }
  return out;
}

void Memory::write_table(const VarInfo& v, const std::vector<SlotValue>& slots, const Tensor& value,
                         const SourceLocation& loc) {
  VarState& s = state(v);
  std::lock_guard lock(mutex_);
  if (value.dtype() != v.dtype) {
    throw input_error(where(loc) + "cannot store " + std::string(dtype_name(value.dtype())) +
                      " into '" + v.name + "' of " + std::string(dtype_name(v.dtype)));
  }
  if (v.auto_dim) {
    write_auto_dim(v, s, slots, value, loc);
    return;
  }
  auto ranges = table_ranges(v, s, slots, loc);
  Shape shape;
  for (const Range& r : ranges)
    if (!r.single) shape.push_back(static_cast<uint64_t>(r.end - r.start));
  uint64_t stacked = product(shape);
  shape.insert(shape.end(), v.shape.begin(), v.shape.end());
  if (value.shape() != shape) {
    throw input_error(where(loc) + "cannot store a value of shape " +
                      shape_to_string(value.shape()) + " into '" + v.name +
                      "' where the access has shape " + shape_to_string(shape));
  }
  uint64_t entry_numel = product(v.shape);
  std::vector<std::vector<int64_t>> keys;
  uint64_t fresh = 0;
  for (uint64_t n = 0; n < stacked; ++n) {
    std::vector<int64_t> key(ranges.size());
    uint64_t rest = n;
    for (size_t k = ranges.size(); k-- > 0;) {
      uint64_t len = static_cast<uint64_t>(ranges[k].end - ranges[k].start);
      key[k] =
          ranges[k].single ? ranges[k].start : ranges[k].start + static_cast<int64_t>(rest % len);
      if (!ranges[k].single) rest /= len;
    }
    fresh += s.entries.count(key) == 0 ? 1 : 0;
    keys.push_back(std::move(key));
  }
  check_budget(v, fresh * storage_bytes(v.dtype, entry_numel).value_or(0), loc);
  std::vector<std::vector<int64_t>> written;
  for (uint64_t n = 0; n < stacked; ++n) {
    const std::vector<int64_t>& key = keys[n];
    note_entry(v, s, key);
    Tensor entry(v.dtype, v.shape);
    copy_elements(value, n * entry_numel, entry, 0, entry_numel);
    s.entries[key].value = std::move(entry);
    for (size_t k = 0; k < key.size(); ++k) s.sizes[k] = std::max(s.sizes[k], key[k] + 1);
    if (s.table) written.push_back(key);
  }
  upload_entries(v, s, written);  // a device copy of the table keeps up
}

namespace {

// Whether a cache.reset access names a window of entries (openinfer/reset_window.hpp).
bool resets_a_window(const VarInfo& v, const std::vector<SlotValue>& slots) {
  std::vector<geometry::ResetSlot> table_slots;
  for (size_t pos : v.table_axes) {
    if (pos >= slots.size()) break;
    const SlotValue& slot = slots[pos];
    table_slots.push_back(slot.kind == Slot::Kind::Index ? geometry::ResetSlot::Index
                          : slot.start || slot.end       ? geometry::ResetSlot::Bounded
                                                         : geometry::ResetSlot::WholeAxis);
  }
  return geometry::reset_is_window(table_slots);
}

}  // namespace

void Memory::reset_table(const VarInfo& v, const std::vector<SlotValue>& slots,
                         const SourceLocation& loc) {
  VarState& s = state(v);
  std::lock_guard lock(mutex_);
  // The entries reset: a box per table axis, [start, end).
  std::vector<std::pair<int64_t, int64_t>> box;
  const bool window = resets_a_window(v, slots);
  if (window) {
    // Exactly the entries the same access reads: its ends resolved and checked as a read's.
    for (const Range& r : table_ranges(v, s, slots, loc)) box.emplace_back(r.start, r.end);
  } else {
    for (size_t k = 0; k < v.table_axes.size(); ++k) {
      size_t pos = v.table_axes[k];
      if (pos >= slots.size() || slots[pos].kind != Slot::Kind::Index) break;
      if (slots[pos].index < 0) {
        throw input_error(where(loc) + "table '" + v.name + "': index " + v.indices[pos] + " = " +
                          std::to_string(slots[pos].index) + " is negative");
      }
      box.emplace_back(slots[pos].index, slots[pos].index + 1);
    }
  }
  const bool whole = box.empty();
  if (in_step_) sync_table(v, s);  // the erased entries go to the undo record with their values
  table_undo(v, s);                // the sizes before the reset
  reset_device_entries(v, s, box);
  for (auto it = s.entries.begin(); it != s.entries.end();) {
    bool under = true;
    for (size_t k = 0; k < box.size() && k < it->first.size(); ++k)
      under = under && it->first[k] >= box[k].first && it->first[k] < box[k].second;
    if (!under) {
      it = std::next(it);
      continue;
    }
    note_erased(v, s, it->first, std::move(it->second));
    it = s.entries.erase(it);
  }
  if (whole && !window) std::fill(s.sizes.begin(), s.sizes.end(), 0);
}

void Memory::reset_plain(const VarInfo& v, const SourceLocation& loc) {
  Tensor& t = write(v, loc);
  t = filled_tensor(v.dtype, v.shape, v.decl ? v.decl->init : std::nullopt);
}

}  // namespace oi::exec
