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

struct VarState {
  std::atomic<uint64_t> epoch{0};  // the step epoch `value` belongs to (kLoaded: for good)
  Tensor value;
  std::map<std::vector<int64_t>, TableEntry> entries;  // tables, auto_dim, prefix entries
  std::vector<int64_t> sizes;                          // growable size per table axis
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
  std::mutex device_mutex;  // consumers may read one variable at the same time
};

// Whether a read or write brings a device copy back to the host first.
enum class HostSync { Yes, No };

inline constexpr uint64_t kLoaded = ~uint64_t{0};

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
  // Downloads the device copy into `value` when it is newer.
  static void sync_host(VarState& s);
  // `buffer` on `backend` now holds the whole value (a kernel wrote it there).
  static void adopt_device(VarState& s, std::shared_ptr<DeviceBuffer> buffer, Backend& backend);
  // `buffer` holds a copy of the value uploaded from the host (both are current).
  static void share_device(VarState& s, std::shared_ptr<DeviceBuffer> buffer, Backend& backend);
  void insert(const VarInfo& v, Tensor value);  // the host's insert, between steps
  bool has_value(const VarInfo& v) const;
  void set_in_step(bool on) { in_step_ = on; }

  // Prefix-table entry W[l] (volatile/constant families).
  const Tensor& prefix_entry(const VarInfo& v, const std::vector<int64_t>& index,
                             const SourceLocation& loc);

  // Persistent tables and auto_dim matrices; `slots` has one slot per declared index.
  Tensor read_table(const VarInfo& v, const std::vector<SlotValue>& slots,
                    const SourceLocation& loc);
  void write_table(const VarInfo& v, const std::vector<SlotValue>& slots, const Tensor& value,
                   const SourceLocation& loc);
  // cache.reset: the whole table, or every entry under the given leading indices.
  void reset_table(const VarInfo& v, const std::vector<SlotValue>& slots,
                   const SourceLocation& loc);
  // cache.reset of an unindexed variable: its @init value (or zeros).
  void reset_plain(const VarInfo& v, const SourceLocation& loc);

  // Bytes held by written table entries and auto_dim matrices (docs/runtime.md).
  uint64_t table_bytes() const;

  std::mutex& mutex() { return mutex_; }

 private:
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
  // The auto_dim matrix at table key `key`, created (counts 0, @init cells) when new.
  TableEntry& auto_entry_at(const VarInfo& v, VarState& s, const std::vector<int64_t>& key);
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
  std::mutex mutex_;  // lazy loads and table structure (consumers run concurrently)
};

}  // namespace oi::exec
