// The synthesizer's target-independent plan (docs/synth.md): a validated graph and its model
// turned into data an emitter writes source code from. Built by passes:
//   resolve  - every variable's dtype, shape and storage class against the model (sizes that
//              change at run time, growable tables and @auto_dim, stay run-time values);
//   fuse     - runs of elementwise ops (broadcast included) become one kernel, up to the
//              device's max_kernel_ops and only where prefer_fusion allows; matmul and
//              reductions take an elementwise epilogue. An independent op may move up next to
//              its group's ops to lengthen it (never across another node kind or a scope
//              boundary, nor inside a `no_reorder` scope), and no group crosses a barrier, dep,
//              cache operation, transfer, loop, branch, yield, await or scope boundary;
//              `fuse=false` scopes get one kernel per op;
//   memory   - liveness of temporaries (values that fusion made internal need no memory), an
//              arena with reused offsets, in-place reuse where the catalog allows, and
//              dynamic / constant / persistent memory kept apart; peak against the unplanned sum;
//   schedule - blocks as step lists: loops stay loops, branches conditionals, the consumers of
//              a yield tasks run (or ordered) as dsl.md's determinism rule says.
//
//   oi::Synthesizer synth(oi::DeviceArch::load("devices/x86_64_avx2.json"));
//   oi::Plan plan = synth.synthesize(model, graph);
//   std::cout << plan.to_json();
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openinfer/device_arch.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/op_catalog.hpp"

namespace oi {

inline constexpr int kSynthPlanVersion = 1;

// Where a value lives in generated code.
enum class Storage {
  Dynamic,     // a host input, set by insert before each step
  Constant,    // weights and @init constants: read once at create time
  Persistent,  // kept across steps, fixed size
  Step,        // volatile: reset at the start of every step, kept until the next for fetch
  Arena,       // an `assign` temporary at a planned offset of the step arena
  Internal,    // a temporary a fused kernel keeps in registers: no memory
  Runtime,     // growable table or @auto_dim matrix: sized at run time
};
std::string_view storage_name(Storage s);  // "dynamic", "constant", ...

struct PlanValue {
  std::string name;
  std::string memory;  // "dynamic", "volatile", "constant", "persistent" or "temporary"
  DType dtype = DType::f32;
  Dims shape;  // one entry's shape (the base shape of an @auto_dim matrix)
  Storage storage = Storage::Step;
  uint64_t bytes = 0;                          // whole value; one entry for Runtime; 0 for Internal
  uint64_t unfused_bytes = 0;                  // what it would take without fusion and planning
  std::vector<std::string> indices;            // table or prefix-table indices
  std::vector<std::optional<uint64_t>> bound;  // @fixed bound per index (nullopt: grows)
  std::vector<std::string> auto_dim;           // @auto_dim indices
  uint64_t entries = 1;                        // entries of a fixed-size or prefix table
  std::vector<uint64_t> extents;  // a prefix table's extent along each index (highest + 1)
  std::string link;               // model entry (Constant, Step, Persistent)
  // A scalar whose link names no model tensor but a scalar metadata entry starts as that value
  // (the simulator's rule, dsl.md); it overrides @init in the plan's "init".
  std::optional<Value> metadata_init;
  const VarDecl* decl = nullptr;  // null for temporaries
  // Arena values only.
  uint64_t offset = 0;
  int64_t live_first = -1;  // entry schedule positions (docs/synth.md "Liveness")
  int64_t live_last = -1;
  // Trace positions holding its bytes, as [first, last] ranges (docs/synth.md "Memory").
  std::vector<std::pair<int64_t, int64_t>> live_ranges;
  bool zero_fill = false;             // must be zeroed before its first step (read first)
  std::optional<std::string> shares;  // in-place: takes this value's offset
};

// The catalog's output-shape rule of a kernel's op, for emitters that evaluate it at run time
// (a matrix whose shape is known only then): a ShapeRuleRegistry name and numpy broadcasting.
struct PlanOpRule {
  std::string shape_rule;
  bool broadcast = false;
};

struct PlanKernel {
  uint32_t id = 0;
  std::string kind;                   // "elementwise", "matmul", "reduction", "op"
  Dims shape;                         // iteration shape: the output shape of every op of the group
  std::vector<const Node*> ops;       // run order; for matmul/reduction ops[0] is the head
  std::vector<PlanOpRule> rules;      // per op of `ops`, the catalog's shape rule
  std::vector<std::string> reads;     // values read from memory
  std::vector<std::string> writes;    // values written to memory
  std::vector<std::string> internal;  // values kept in registers
  bool inplace_ok = false;            // every op may write over an input (catalog `inplace`)
  std::string scope;                  // the scope path of its ops ("attention.qk"), "" outside
  std::string placement;              // the scope's `placement` hint, if any
  bool reordered = false;             // an op moved up past other nodes to join the group
};

struct Step {
  enum class Kind {
    Kernel,
    Transfer,
    CacheRead,
    CacheWrite,
    CacheIncrement,
    CacheDecrement,
    CacheReset,
    Loop,
    Branch,
    Return,
    Barrier,
    Dep,
    Yield,
    Await,
  };
  Kind kind = Kind::Kernel;
  uint32_t id = 0;                 // unique over the plan, in schedule order
  const Node* node = nullptr;      // the graph node (null for kernels)
  uint32_t kernel = 0;             // Kind::Kernel
  std::vector<Step> body;          // Kind::Loop
  std::vector<std::string> tasks;  // Kind::Yield in entry: consumer blocks, source order
  std::string scope;               // the node's scope path, "" outside scopes (not kernels)
};
std::string_view step_kind_name(Step::Kind k);  // "kernel", "transfer", "cache.read", ...

struct BlockPlan {
  std::string name;
  std::string role;  // "entry", "branch" (reached by branch) or "consumer" (await/yield)
  std::vector<Step> steps;
};

// An ordering an emitter must keep (dep nodes): step `after` completes before `before` starts.
struct Constraint {
  uint32_t after = 0;
  uint32_t before = 0;
  std::string reason;  // "dep after(add) before(cache.write)"
};

struct MemoryPlan {
  uint32_t alignment = 64;
  uint64_t arena_bytes = 0;      // the planned arena (temporaries)
  uint64_t temporary_bytes = 0;  // every temporary at its own aligned address, none fused
  uint64_t dynamic_bytes = 0;
  uint64_t constant_bytes = 0;
  uint64_t persistent_bytes = 0;           // fixed-size persistent values
  uint64_t step_bytes = 0;                 // volatile values
  uint64_t peak_bytes = 0;                 // all of the above as planned
  uint64_t unplanned_bytes = 0;            // the same with temporary_bytes instead of arena_bytes
  std::vector<std::string> runtime_sized;  // values whose size is known only at run time
};

class PluginRegistry;

struct EmitOptions {
  std::string target;          // emitter target; empty: "c" for a CPU device, "glsl" for a GPU
  std::string name = "model";  // base name of the generated files
  std::vector<std::string> options;  // "key=value" for the emitter ("embed_weights=1")
};

class Plan {
 public:
  DeviceArch device;
  std::shared_ptr<const Graph> graph;  // the graph the node pointers point into
  Model model;
  std::vector<PlanValue> values;  // declarations in order, then temporaries
  std::vector<PlanKernel> kernels;
  std::vector<BlockPlan> blocks;  // entry first, then source order
  std::vector<Constraint> constraints;
  MemoryPlan memory;

  const PlanValue* find_value(std::string_view name) const;
  const BlockPlan* find_block(std::string_view name) const;
  // Versioned JSON form (docs/synth.md), deterministic, with a trailing newline.
  std::string to_json() const;
  // Human summary for `openinfer synth --report`: fused groups, kernels, buffers, peak.
  std::string report() const;
  // The seeds' plan.emit(dir): hands the plan to the registry's emitter for the target and
  // writes the files it returns under `dir`, each atomically. Returns their paths. Throws
  // oi::Error: environment (no emitter for the target), input (the emitter's own error, such
  // as an op it cannot express, or a bad file name).
  std::vector<std::filesystem::path> emit(const PluginRegistry& registry,
                                          const std::filesystem::path& dir,
                                          const EmitOptions& options = {}) const;

  explicit Plan(Model m) : model(std::move(m)) {}
};

class Synthesizer {
 public:
  explicit Synthesizer(DeviceArch arch) : arch_(std::move(arch)) {}
  // The built-in description of a target ("c", "glsl"; DeviceArch::for_target).
  static Synthesizer for_target(std::string_view target);

  // Validates the graph against the model (validate_against_model) and plans it. A graph
  // with validation errors throws oi::Error(Input) listing them.
  Plan synthesize(const Model& model, const Graph& graph,
                  const OpCatalog& catalog = OpCatalog::builtin()) const;
  // The same for a graph JSON file (docs/graph-json.md).
  Plan synthesize(const Model& model, const std::filesystem::path& graph_json,
                  const OpCatalog& catalog = OpCatalog::builtin()) const;

  const DeviceArch& arch() const { return arch_; }
  // Temporaries (`assign`) the generated program keeps after each step so that they can be
  // fetched (`synth --fetchable NAME`): planned as step memory, never fused away or shared.
  // A name that is neither a temporary nor a declared variable fails synthesize().
  void keep_temporaries(std::vector<std::string> names) { keep_ = std::move(names); }

 private:
  DeviceArch arch_;
  std::vector<std::string> keep_;
};

}  // namespace oi
