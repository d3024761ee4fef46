// The immutable part of a simulation, shared by every executor of one Simulator: the graph,
// each variable's resolved layout, and each op node's kernel and settings.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "op_facts.hpp"
#include "op_result_shape.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/tensor.hpp"

namespace oi::exec {

enum class VarKind { Dynamic, Volatile, Constant, Persistent, Temporary };
std::string_view var_kind_name(VarKind kind);

struct VarInfo {
  size_t id = 0;
  std::string name;
  VarKind kind = VarKind::Temporary;
  DType dtype = DType::f32;
  Shape shape;                    // one entry's shape (the whole variable when it has no indices)
  const VarDecl* decl = nullptr;  // null for temporaries
  std::vector<std::string> indices;
  bool prefix = false;                        // volatile/constant family resolved through a pattern
  bool table = false;                         // persistent with table indices
  bool auto_dim = false;                      // persistent with @auto_dim
  std::vector<size_t> table_axes;             // positions in `indices` of table indices
  std::vector<size_t> auto_axes;              // positions in `indices` of auto_dim indices
  std::vector<std::optional<int64_t>> bound;  // @fixed bound per position in `indices`
  std::string link;                           // model entry name (@ref or the name)
};

// A first-come-first-served lock: consumer blocks calling kernels in a loop take turns instead
// of one starving the others (std::mutex makes no such promise).
class TicketMutex {
 public:
  void lock() {
    uint64_t mine = next_.fetch_add(1, std::memory_order_relaxed);
    for (uint64_t now = serving_.load(std::memory_order_acquire); now != mine;
         now = serving_.load(std::memory_order_acquire)) {
      serving_.wait(now, std::memory_order_acquire);
    }
  }
  void unlock() {
    serving_.fetch_add(1, std::memory_order_release);
    serving_.notify_all();
  }

 private:
  std::atomic<uint64_t> next_{0};
  std::atomic<uint64_t> serving_{0};
};

// One backend with the lock that serialises its kernel calls (plugin_abi.h), taken only when
// the device does not report OI_FEATURE_CONCURRENT_KERNELS.
struct BackendSlot {
  std::shared_ptr<Backend> backend;
  TicketMutex run_mutex;
  bool concurrent = false;
  // A device backend's copies of model bytes (weights of constant and volatile memory, prefix
  // entries), uploaded once per program instead of once per node: the file never changes.
  std::mutex resident_mutex;
  std::unordered_map<const std::byte*, std::pair<uint64_t, std::shared_ptr<DeviceBuffer>>> resident;
};

struct PlannedSetting {
  std::string name;
  SettingKind kind = SettingKind::Number;
  KernelValue value;
  std::optional<Value> ident;  // a name resolved at run time (loop index, constant scalar)
};

struct OpPlan {
  const VarInfo* output_var = nullptr;
  std::vector<const VarInfo*> input_vars;
  const Kernel* kernel = nullptr;
  BackendSlot* backend = nullptr;
  KernelMode mode = KernelMode::Normal;
  bool output_aliases_input = false;  // `op f(x, ...) >> x` whatever the mode
  bool dynamic_settings = false;
  // The host fallback's kernel for a tiny result of plain variables (kHostOpBytes): used
  // instead of `kernel` when every input is current on the host (docs/runtime.md).
  const Kernel* host_kernel = nullptr;
  // The fallback's kernel (in `decline_mode`) for a call the primary's kernel declines
  // (OI_STATUS_DECLINED): null when `backend` is the fallback or the fallback lacks the op.
  const Kernel* decline_kernel = nullptr;
  KernelMode decline_mode = KernelMode::Normal;
  std::vector<PlannedSetting> settings;
  std::vector<KernelSetting> static_settings;  // when !dynamic_settings
  // Where a declined call goes (with decline_kernel): the host fallback, or the primary for a
  // node a scope placed elsewhere.
  BackendSlot* decline_backend = nullptr;
  // Set where an operand's shape is known only at run time (a table slice or entry, an
  // @auto_dim matrix, a prefix entry, an output into a table): each call's result shape is
  // then checked against its output before the kernel runs.
  std::optional<ResultShapeRule> runtime_shape;
};

// A scope of one block as the executor reports it.
struct ScopeInfo {
  std::string path;  // "attention.qk"
  ScopeHints hints;  // inherited
};

// An op whose output has at most this many bytes runs on the host fallback when its inputs
// are current there: a branch on its result then needs no device round trip. A gather's work
// is its output (the data stays where it is), so it does up to kHostGatherBytes: a device
// gather checks host indices by reading them back, which is a round trip.
inline constexpr uint64_t kHostOpBytes = 16;
inline constexpr uint64_t kHostGatherBytes = 64 << 10;

struct Program {
  Graph graph;
  Model model;
  std::unique_ptr<BackendSlot> primary;
  std::unique_ptr<BackendSlot> fallback;
  std::vector<std::unique_ptr<BackendSlot>> placed;  // SimulatorOptions::placements
  std::vector<std::string> warnings;
  std::unordered_map<const Block*, std::vector<ScopeInfo>> scopes;
  std::vector<VarInfo> vars;
  std::unordered_map<std::string, size_t> var_ids;
  std::unordered_map<const Node*, OpPlan> ops;
  // Per `yield` node of entry: the consumer blocks, in source order.
  std::unordered_map<const Node*, std::vector<const Block*>> consumers;
  std::unordered_map<const Block*, uint32_t> consumer_track;
  // The yields whose consumers run one after another, in the order `consumers` lists them:
  // a consumer writes a persistent table or @auto_dim matrix the yield hands to others, which
  // must see it as yielded (dsl.md's deterministic result; the writer changes it in place, so
  // it runs after them, openinfer/consumer_order.hpp as in the synthesized programs).
  std::unordered_set<const Node*> sequential_yields;
  // A yield whose consumers each await a table another writes (no order serves): per
  // consumer, the tables it reads as yielded from a copy (Memory::table_snapshot).
  std::unordered_map<const Node*, std::unordered_map<const Block*, std::vector<const VarInfo*>>>
      snapshot_tables;
  const Block* entry = nullptr;
  uint64_t max_table_bytes = 0;  // SimulatorOptions::max_table_bytes (0: no limit)

  Program(const Model& model, const Graph& graph, std::shared_ptr<Backend> backend,
          std::shared_ptr<Backend> fallback_backend, const OpCatalog* catalog,
          std::vector<std::shared_ptr<Backend>> placements = {});

  const VarInfo* find(std::string_view name) const;
  const VarInfo& var(std::string_view name, const SourceLocation& loc) const;
  // A size variable's value.
  std::optional<int64_t> sizevar(std::string_view name) const;

 private:
  void add_variables();
  Shape resolve_dims(const std::vector<Dim>& dims, const SourceLocation& loc) const;
  void plan_ops(const OpCatalog& catalog);
  void plan_op(const Node& node, const Block& block, const OpCatalog& catalog);
  // The slot of the backend named `name` (primary, fallback, or a placement), else nullptr.
  BackendSlot* slot_named(std::string_view name) const;
  void find_consumers(const OpCatalog& catalog);
  void order_consumers(const OpCatalog& catalog);
};

// "graph.oi:3:7: " or "" for programmatic nodes.
std::string where(const SourceLocation& loc);

}  // namespace oi::exec
