// One executor's memory: every variable's value with the lifetime of its memory kind
// (dsl.md "Memory"), persistent tables, auto_dim matrices and prefix-table entries.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "program.hpp"

namespace oi::exec {

// One slot of an access with its index expressions evaluated; ends still unresolved (an
// omitted end is the current size, a negative one counts from it).
struct SlotValue {
  Slot::Kind kind = Slot::Kind::All;
  int64_t index = 0;
  std::optional<int64_t> start;
  std::optional<int64_t> end;
};

struct TableEntry {
  Tensor value;
  std::vector<uint64_t> counts;  // auto_dim growth per auto axis
  uint64_t epoch = 0;            // prefix entries of volatile memory: the step they belong to
};

// A persistent table's entries in a device backend's memory (docs/runtime.md, "Device
// tables"): one buffer, row-major over the table axes with `extents` entries along each (a
// capacity that doubles, at most the @fixed bound), entry `key` at byte
// linear(key) * entry_bytes. Places never written hold the @init value. The host's `entries`
// always list the written keys (sizes and table_bytes come from them); their values are older
// than the buffer while host_stale.
struct DeviceTable {
  std::shared_ptr<DeviceBuffer> buffer;
  Backend* backend = nullptr;
  std::vector<int64_t> extents;
  uint64_t entry_bytes = 0;
  bool host_stale = false;
  std::shared_ptr<DeviceBuffer> staging;  // a kernel writes here before the copy into `buffer`
};

struct VarState {
  std::atomic<uint64_t> epoch{0};  // the step epoch `value` belongs to (kLoaded: for good)
  Tensor value;
  std::map<std::vector<int64_t>, TableEntry> entries;  // tables, auto_dim, prefix entries
  std::vector<int64_t> sizes;                          // growable size per table axis
  // Prefix tables of one index: entry i of `entries`, once loaded (Memory::prefix_entry).
  std::vector<TableEntry*> prefix_flat;
  // Zero-copy buffer over `value` (entry's interpreter only).
  std::shared_ptr<DeviceBuffer> buffer;
  const std::byte* buffer_data = nullptr;
  uint64_t buffer_bytes = 0;
  const Backend* buffer_backend = nullptr;
  // A device backend's copy of `value`: values stay in device memory between nodes and steps,
  // and cross the bus only when the host reads them (docs/runtime.md, "Device memory").
  // device_valid: `device` holds the value; host_stale: and `value`'s bytes are older.
  std::shared_ptr<DeviceBuffer> device;
  Backend* device_backend = nullptr;
  bool device_valid = false;
  bool host_stale = false;
  std::mutex device_mutex;             // consumers may read one variable at the same time
  std::unique_ptr<DeviceTable> table;  // a table's device copy (tables only)
};

// Whether a read or write brings a device copy back to the host first.
enum class HostSync { Yes, No };

inline constexpr uint64_t kLoaded = ~uint64_t{0};
inline constexpr int64_t kFlatPrefixEntries = 1 << 16;  // VarState::prefix_flat's reach

class Memory {
 public:
  explicit Memory(const Program& program);

  void begin_step() { ++epoch_; }
  uint64_t epoch() const { return epoch_; }
  VarState& state(const VarInfo& v) { return *states_[v.id]; }

  // Plain (unindexed) variables. HostSync::No is for kernels of the backend that holds the
  // device copy: the bytes may be stale, shape and dtype are right; a write with it keeps the
  // device copy (the caller replaces it), a write with HostSync::Yes drops it.
  const Tensor& read(const VarInfo& v, const SourceLocation& loc, HostSync sync = HostSync::Yes);
  Tensor& write(const VarInfo& v, const SourceLocation& loc, HostSync sync = HostSync::Yes);
  // A write of the whole value by the host: a newer device copy is dropped, not downloaded.
  Tensor& replace(const VarInfo& v, const SourceLocation& loc);
  // Whether a device copy of the plain variable is newer than its host value.
  bool host_stale(const VarInfo& v) {
    VarState& s = state(v);
    std::lock_guard lock(s.device_mutex);
    return s.host_stale;
  }
  // Downloads the device copy into `value` when it is newer.
  static void sync_host(VarState& s);
  // `buffer` on `backend` now holds the whole value (a kernel wrote it there).
  static void adopt_device(VarState& s, std::shared_ptr<DeviceBuffer> buffer, Backend& backend);
  // `buffer` holds a copy of the value uploaded from the host (both are current).
  static void share_device(VarState& s, std::shared_ptr<DeviceBuffer> buffer, Backend& backend);
  void insert(const VarInfo& v, Tensor value);  // the host's insert, between steps
  bool has_value(const VarInfo& v) const;
  void set_in_step(bool on) { in_step_ = on; }

  // The step's undo record (memory_undo.cpp, docs/runtime.md "Failed steps"): the first write
  // of a step to a persistent variable or table entry keeps what was there before. rollback()
  // puts it all back after a failed step; commit() forgets it after a completed one.
  void rollback();
  void commit();

  // Prefix-table entry W[l] (volatile/constant families).
  const Tensor& prefix_entry(const VarInfo& v, const std::vector<int64_t>& index,
                             const SourceLocation& loc);

  // Persistent tables and auto_dim matrices; `slots` has one slot per declared index.
  // `from`: a table_snapshot to read instead of the table's state.
  Tensor read_table(const VarInfo& v, const std::vector<SlotValue>& slots,
                    const SourceLocation& loc, VarState* from = nullptr);
  // A copy of a table's (or @auto_dim matrix's) entries and sizes as they are now: what a
  // consumer reads of a table that another consumer of the same yield writes (dsl.md: the
  // others see the snapshot, never each other's writes).
  std::shared_ptr<VarState> table_snapshot(const VarInfo& v);
  void write_table(const VarInfo& v, const std::vector<SlotValue>& slots, const Tensor& value,
                   const SourceLocation& loc);
  // cache.reset: the whole table, every entry under the given leading indices, or (a slice
  // among them, or a whole axis before an index) exactly the entries that access reads.
  void reset_table(const VarInfo& v, const std::vector<SlotValue>& slots,
                   const SourceLocation& loc);
  // cache.reset of an unindexed variable: its @init value (or zeros).
  void reset_plain(const VarInfo& v, const SourceLocation& loc);

  // Device tables (device_tables.cpp). Only plain @table variables (not auto_dim) with
  // whole-byte entries qualify (device_table_capable).
  bool device_table_capable(const VarInfo& v) const;
  // The backend whose memory holds v's entries, or nullptr while they are on the host only.
  Backend* table_backend(const VarInfo& v);
  // The shape a table access reads or writes (its sliced axes stacked before the entry shape),
  // checking the indices as read_table does.
  Shape table_access_shape(const VarInfo& v, const std::vector<SlotValue>& slots,
                           const SourceLocation& loc);
  // Stores the bytes at src_offset of `src` (in `backend`'s memory, the access's shape) where
  // the access points, by device copies: the table moves into `backend`'s memory first when it
  // is not there (one upload of its entries).
  void write_table_device(const VarInfo& v, const std::vector<SlotValue>& slots, Backend& backend,
                          const DeviceBuffer& src, uint64_t src_offset, const SourceLocation& loc);
  // Copies what the access reads into `dst` (whole, the access's bytes) inside `backend`'s
  // memory; false, doing nothing, when the table's entries are not in that memory.
  bool read_table_device(const VarInfo& v, const std::vector<SlotValue>& slots, Backend& backend,
                         DeviceBuffer& dst, const SourceLocation& loc);
  // A buffer of `bytes` in the table's backend for a kernel's output, reused node after node.
  std::shared_ptr<DeviceBuffer> table_staging(const VarInfo& v, Backend& backend, uint64_t bytes);

  // Bytes held by written table entries and auto_dim matrices (docs/runtime.md).
  uint64_t table_bytes() const;

  std::mutex& mutex() { return mutex_; }

 private:
  // What one table held before the step's first write to each key (nullopt: no entry).
  struct TableUndo {
    std::vector<int64_t> sizes;
    std::map<std::vector<int64_t>, std::optional<TableEntry>> entries;
  };
  // Undo record (memory_undo.cpp). note_plain: before a persistent plain variable's write.
  void note_plain(const VarInfo& v, VarState& s);
  // Before a write to (or the erasure of) table entry `key`; callers hold mutex_. An entry a
  // cache.reset erases is moved into the record (`erased`), never copied.
  void note_entry(const VarInfo& v, VarState& s, const std::vector<int64_t>& key);
  // The same where the caller has looked `key` up: `now` is its entry, nullptr when none.
  void note_entry(const VarInfo& v, VarState& s, const std::vector<int64_t>& key,
                  const TableEntry* now);
  void note_erased(const VarInfo& v, VarState& s, std::vector<int64_t> key, TableEntry erased);
  TableUndo* table_undo(const VarInfo& v, VarState& s);  // nullptr outside steps
  // The table budget: throws naming the table when `added` more bytes would pass it.
  void check_budget(const VarInfo& v, uint64_t added, const SourceLocation& loc) const;
  uint64_t table_bytes_of(size_t id) const;
  // Entry `key`'s value now, from the device table when that is newer (one entry's bytes).
  Tensor entry_now(const VarInfo& v, VarState& s, const std::vector<int64_t>& key,
                   const TableEntry& e);
  // A restored entry (nullptr: unwritten) written into the device table too, if there is one.
  void restore_device_entry(const VarInfo& v, VarState& s, const std::vector<int64_t>& key,
                            const Tensor* value);

  struct Range {
    bool single = false;
    int64_t start = 0;
    int64_t end = 0;
  };
  Tensor initial_value(const VarInfo& v, const SourceLocation& loc) const;
  // The value of the step (initialised on first use), without syncing a device copy.
  const Tensor& current(const VarInfo& v, VarState& s, const SourceLocation& loc);
  static void drop_device(VarState& s);
  std::vector<Range> table_ranges(const VarInfo& v, VarState& s,
                                  const std::vector<SlotValue>& slots,
                                  const SourceLocation& loc) const;
  Shape matrix_shape(const VarInfo& v, const std::vector<uint64_t>& counts) const;
  // Device tables (device_tables.cpp); callers hold mutex_.
  void sync_table(const VarInfo& v, VarState& s);  // host values current again
  // The table in `backend`'s memory with room for every key below `needed` (per table axis).
  DeviceTable& device_table(const VarInfo& v, VarState& s, Backend& backend,
                            const std::vector<int64_t>& needed);
  // Host-written entries copied to the device table, if there is one.
  void upload_entries(const VarInfo& v, VarState& s, const std::vector<std::vector<int64_t>>& keys);
  // cache.reset of the keys in `box` ([start, end) per leading table axis; empty: the whole
  // table) on the device table, if there is one.
  void reset_device_entries(const VarInfo& v, VarState& s,
                            const std::vector<std::pair<int64_t, int64_t>>& box);
  // The auto_dim matrix at table key `key`, created (counts 0, @init cells) when new.
  TableEntry& auto_entry_at(const VarInfo& v, VarState& s, const std::vector<int64_t>& key,
                            const SourceLocation& loc);
  // What an access reads of one auto_dim matrix: the box of its slices, or (scalar auto
  // indices) the whole matrix after growing it.
  Tensor auto_part(const VarInfo& v, TableEntry& e, const std::vector<SlotValue>& slots,
                   const SourceLocation& loc);
  Tensor read_auto_dim(const VarInfo& v, VarState& s, const std::vector<SlotValue>& slots,
                       const SourceLocation& loc);
  void write_auto_dim(const VarInfo& v, VarState& s, const std::vector<SlotValue>& slots,
                      const Tensor& value, const SourceLocation& loc);
  void grow(const VarInfo& v, TableEntry& e, const std::vector<SlotValue>& slots,
            const SourceLocation& loc);
  // The box an auto_dim slice covers in matrix coordinates; nullopt for scalar indices.
  std::optional<std::pair<Shape, Shape>> auto_box(const VarInfo& v, const TableEntry& e,
                                                  const std::vector<SlotValue>& slots,
                                                  const SourceLocation& loc) const;

  const Program& program_;
  std::vector<std::unique_ptr<VarState>> states_;
  std::atomic<uint64_t> epoch_{0};
  bool in_step_ = false;
  std::map<size_t, Tensor> undo_plain_;  // by variable id
  std::map<size_t, TableUndo> undo_tables_;
  std::mutex undo_mutex_;  // undo_plain_ (plain writes run concurrently)
  std::mutex mutex_;       // lazy loads and table structure (consumers run concurrently)
};

}  // namespace oi::exec
