// The simulator: validates a graph against a model and a backend, and makes executors that run
// it step by step (dsl.md "Memory", "Blocks and nodes", "Concurrency"; docs/runtime.md).
//
//   oi::Simulator sim(model, graph, cpu);
//   auto exec = sim.make_executor();
//   exec.insert({{"x", oi::Tensor::from<float>({1, 2, 3})}});
//   exec.step();
//   auto y = exec.fetch<float>("y");            // y.data, y.shape
//   for (const auto& ev : exec.iterate()) { ... exec.fetch("h") ... }
//   boost::json::array trace = exec.trace();
#pragma once

#include <boost/json/array.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "openinfer/graph.hpp"
#include "openinfer/tensor.hpp"

namespace oi {

class Backend;
class Model;
class OpCatalog;

namespace exec {
struct Program;
class Runtime;
}  // namespace exec

struct SimulatorOptions {
  // Runs the ops the chosen backend lacks (normally the CPU backend), with one warning each.
  std::shared_ptr<Backend> fallback;
  // The op catalog to check against (nullptr: the builtin one).
  const OpCatalog* catalog = nullptr;
  // Backends a scope's `placement` hint may name besides `backend` and `fallback` (dsl.md
  // "Scopes"). A placement naming no backend given runs on `backend`, with a warning.
  std::vector<std::shared_ptr<Backend>> placements;
  // The most bytes the executor's persistent tables may hold together (Executor::table_bytes,
  // docs/runtime.md "Table budget"); 0: no limit. A step whose table write would pass it fails
  // before allocating, naming the table, and leaves memory as it was before the step.
  uint64_t max_table_bytes = 0;
};

// One scope holding an executed node (dsl.md "Scopes").
struct ExecScope {
  std::string_view name;  // "qk"
  std::string_view path;  // "attention.qk"
  // Numbers the entries into scopes of one track in a step: a scope in a loop body is entered
  // once per iteration, and two runs of one scope in a row stay apart.
  uint64_t instance = 0;
};

// One executed node. Views point into the simulator's copy of the graph and its backends.
struct ExecEvent {
  NodeKind kind = NodeKind::Barrier;
  std::string_view block;
  uint32_t node_index = 0;
  std::string_view node_uuid;
  // The op for Op nodes; the node's keyword otherwise ("cache.read", "loop", ...).
  std::string_view op_name;
  const Node* node = nullptr;
  uint64_t step = 0;       // 0-based step number
  int64_t iteration = -1;  // the innermost loop index, -1 outside loops
  uint32_t track = 0;      // 0: entry; k: the k-th consumer block (source order)
  uint64_t thread = 0;     // a small id of the OS thread that ran the node
  int64_t start_ns = 0;    // since the executor was made; 0 without timing
  int64_t end_ns = 0;
  // Op nodes: the backend whose kernel ran the call. When a backend declined the call first
  // (OI_STATUS_DECLINED: its operands were beyond that kernel's limits), declined_by names it
  // and decline_reason is its message; the call then ran on `backend`, the other one.
  std::string_view backend;
  std::string_view declined_by;
  std::string decline_reason;
  // The scopes holding the node, outermost first; empty outside scopes.
  std::vector<ExecScope> scopes;
  int64_t duration_ns() const { return end_ns - start_ns; }
  // The innermost scope's path ("attention.qk"), "" outside scopes.
  std::string_view scope() const {
    return scopes.empty() ? std::string_view() : scopes.back().path;
  }
};

// The trace JSON of cli.md "Trace files" for `events`.
boost::json::array trace_to_json(std::span<const ExecEvent> events);

// A typed copy of a variable.
template <class T>
struct Fetched {
  std::vector<T> data;
  Shape shape;
  size_t size() const { return data.size(); }
  const T& operator[](size_t i) const { return data[i]; }
};

class Executor;

class Simulator {
 public:
  // Validates `graph` against `model` (both levels of docs/validation.md) and resolves every op
  // to a kernel of `backend`, else of options.fallback. Throws oi::Error listing every problem.
  Simulator(const Model& model, const Graph& graph, std::shared_ptr<Backend> backend,
            SimulatorOptions options = {});
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  // Validation warnings and one line per op that runs on the fallback backend.
  const std::vector<std::string>& warnings() const;
  const Graph& graph() const;
  Executor make_executor() const;

 private:
  std::shared_ptr<const exec::Program> program_;
};

class Executor {
 public:
  class StepRange;

  ~Executor();
  Executor(Executor&&) noexcept;
  Executor& operator=(Executor&&) noexcept;

  // Dynamic memory only, between steps; dtype and shape must equal the declaration's.
  void insert(std::string_view name, Tensor value);
  void insert(std::initializer_list<std::pair<std::string_view, Tensor>> values);

  // A copy of any declared variable or temporary, between steps or between iterate() events.
  // Tables come stacked as the slice `[]` would give them.
  Tensor fetch(std::string_view name) const;
  template <class T>
  Fetched<T> fetch(std::string_view name) const {
    Tensor t = fetch(name);
    check_fetch_type(name, t, dtype_of_v<T>);
    auto span = t.as<T>();
    return Fetched<T>{std::vector<T>(span.begin(), span.end()), t.shape()};
  }

  // Runs one step (or the rest of one that iterate() started).
  void step();
  // Runs one step node by node: each ++ executes one node (consumer blocks' nodes arrive when
  // entry awaits them). Leaving the loop early leaves the step open; step() finishes it.
  StepRange iterate();

  // Measure node durations (off by default: events then carry zero times).
  void set_timing(bool on);
  bool timing() const;

  uint64_t step_count() const;  // completed steps
  // Bytes held by written table entries and auto_dim matrices (the budget's measure).
  uint64_t table_bytes() const;
  bool in_step() const;
  // The events of the current or most recent step, in execution order.
  std::span<const ExecEvent> events() const;
  boost::json::array trace() const { return trace_to_json(events()); }

  // Declared variables (declaration order), then entry's temporaries.
  std::vector<std::string> declared_names() const;
  // The names of entry's `return` in the most recent step.
  const std::vector<std::string>& outputs() const;

 private:
  friend class Simulator;
  explicit Executor(std::shared_ptr<const exec::Program> program);
  static void check_fetch_type(std::string_view name, const Tensor& t, DType wanted);
  std::unique_ptr<exec::Runtime> runtime_;
};

class Executor::StepRange {
 public:
  class iterator {
   public:
    using value_type = ExecEvent;
    using difference_type = std::ptrdiff_t;
    const ExecEvent& operator*() const;
    const ExecEvent* operator->() const { return &**this; }
    iterator& operator++();
    bool operator==(std::default_sentinel_t) const { return done_; }

   private:
    friend class StepRange;
    exec::Runtime* runtime_ = nullptr;
    bool done_ = true;
  };
  iterator begin();
  std::default_sentinel_t end() const { return {}; }

 private:
  friend class Executor;
  explicit StepRange(exec::Runtime* runtime) : runtime_(runtime) {}
  exec::Runtime* runtime_;
};

}  // namespace oi
