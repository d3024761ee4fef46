// Runs the nodes of one block, one at a time: entry on the caller's thread, each consumer block
// in a oneTBB task. Loops, branches and returns are frames on an explicit stack, so a step can
// pause after any node (Executor::iterate).
#pragma once

#include <tbb/task_group.h>

#include <chrono>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "memory.hpp"
#include "openinfer/simulator.hpp"

namespace oi::exec {

// A consumer's private copies of the variables it awaits (dsl.md "Concurrency").
struct Overlay {
  std::unordered_map<size_t, Tensor> values;  // by variable id
  // Tables another consumer of the same yield writes, as yielded (Memory::table_snapshot).
  std::unordered_map<size_t, std::shared_ptr<VarState>> tables;
  std::unordered_set<size_t> written;
};

// What every interpreter of one executor shares.
struct StepContext {
  const Program& program;
  Memory& memory;
  bool timing = false;
  uint64_t step = 0;
  std::chrono::steady_clock::time_point origin;
  int64_t now_ns() const;
};

class Interpreter {
 public:
  Interpreter(StepContext& ctx, const Block& block, uint32_t track, Overlay* overlay,
              std::vector<ExecEvent>* events);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs one node and records its event; false once the block has ended.
  bool step_node();
  void run_to_end() {
    while (step_node()) {
    }
  }
  bool finished() const { return frames_.empty(); }
  // Waits for every consumer still running (after an error, or a yield never awaited).
  void join_consumers() noexcept;
  const std::vector<std::string>& outputs() const { return outputs_; }

 private:
  struct Frame {
    const std::vector<Node>* nodes;
    size_t pc = 0;
    const Block* block = nullptr;  // set on block frames (loop indices stop there)
    const Node* loop = nullptr;
    int64_t index = 0;
    int64_t end = 0;
    size_t scope_base = 0;  // scopes_ entries that enclose this frame (kept while it runs)
  };
  // A scope entered and not yet left (dsl.md "Scopes").
  struct OpenScope {
    int32_t id;
    uint64_t instance;
  };
  struct Consumer {
    const Block* block;
    Overlay overlay;
    std::vector<ExecEvent> events;
    std::shared_ptr<tbb::task_group> group;  // one for all of a sequential yield
    bool joined = false;
  };

  void execute(const Node& node, ExecEvent& ev);
  // Runs an op node on its backend; a declined call runs on the other backend of the program
  // (its fallback), recorded in `ev`.
  void run_op(const Node& node, ExecEvent& ev);
  void run_op_on(const Node& node, const OpPlan& plan, BackendSlot& slot, const Kernel& kernel,
                 KernelMode mode);
  bool inputs_on_host(const Node& node, const OpPlan& plan);
  // transfer / cache.write of a value held in device memory, copied inside the device
  // (interpreter_device.cpp); false when the host path must run.
  bool store_on_device(const Ref& source, const Access& target);
  // cache.read of a table held in device memory into a plain variable, inside the device.
  bool read_on_device(const Node& node);
  void run_yield(const Node& node);
  void run_await(const Node& node);
  void enter_loop(const Node& node);
  void leave_block();
  void push_frame(Frame frame);
  void pop_frame();
  // Leaves and enters scopes so that scopes_ holds `node`'s, and lists them in `ev`.
  void track_scopes(const Block& block, size_t block_frame, const Node& node, ExecEvent& ev);

  // Names: loop index, then declared scalar, then size variable (dsl.md).
  std::optional<int64_t> loop_index(std::string_view name) const;
  int64_t resolve_int(std::string_view name, const SourceLocation& loc);
  int64_t eval(const Index& index, const SourceLocation& loc);
  int64_t eval(const Bound& bound, const SourceLocation& loc);
  std::vector<SlotValue> slots_of(const Access& access);
  std::vector<SlotValue> slots_of(const Ref& ref);

  const VarInfo& var(const std::string& name, const SourceLocation& loc) const;
  Tensor* overlay_value(const VarInfo& v);
  // The copy of table `v` this consumer reads (Overlay::tables), else nullptr.
  VarState* table_snapshot(const VarInfo& v);
  // A value to read. `scratch` holds values that are assembled (table entries, slices).
  const Tensor& read_ref(const Ref& ref, Tensor& scratch);
  const Tensor& read_ref(const Ref& ref, const VarInfo& v, Tensor& scratch);
  const Tensor& read_access(const Access& access, Tensor& scratch);
  // Stores `value` where `access` points, as cache.write does.
  void store(const Access& access, const Tensor& value);
  // `whole`: the caller overwrites every byte, so a newer device copy need not come back.
  Tensor& plain_output(const Access& access, bool whole = false);

  StepContext& ctx_;
  uint32_t track_;
  Overlay* overlay_;
  std::vector<ExecEvent>* events_;
  std::vector<Frame> frames_;
  std::vector<OpenScope> scopes_;
  uint64_t next_instance_ = 0;
  std::vector<std::unique_ptr<Consumer>> consumers_;
  std::vector<std::string> outputs_;
  uint64_t thread_id_;
  // Reused by every node so that a node allocates nothing in the common case.
  Tensor node_scratch_;
  std::vector<Tensor> op_scratch_;
  std::vector<const Tensor*> op_inputs_;
  std::vector<VarState*> op_states_;
  std::vector<TensorArg> op_args_;
  std::vector<KernelSetting> op_settings_;
  std::vector<std::pair<const std::byte*, std::shared_ptr<DeviceBuffer>>> op_buffers_;
};

// A small id for the calling thread (1, 2, ... in order of first use).
uint64_t thread_number();

}  // namespace oi::exec
