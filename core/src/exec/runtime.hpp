// One executor's state: its memory, the step in progress and the events of the last step.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "interpreter.hpp"

namespace oi::exec {

class Runtime {
 public:
  explicit Runtime(std::shared_ptr<const Program> program);
  ~Runtime();

  void insert(std::string_view name, Tensor value);
  Tensor fetch(std::string_view name);

  // Starts a step when none is open; runs one node of entry. False when the step has ended.
  bool advance();
  void run_step();
  bool in_step() const { return entry_ != nullptr; }

  const Program& program() const { return *program_; }
  std::vector<ExecEvent>& events() { return events_; }
  const std::vector<std::string>& outputs() const { return outputs_; }
  uint64_t step_count() const { return steps_; }
  uint64_t table_bytes() const { return memory_.table_bytes(); }
  bool timing() const { return ctx_.timing; }
  void set_timing(bool on) { ctx_.timing = on; }

  // iterate(): the event the iterator points at.
  size_t cursor = 0;

 private:
  void begin_step();
  void end_step();
  void abort_step() noexcept;
  const VarInfo& lookup(std::string_view name, std::string_view what) const;

  std::shared_ptr<const Program> program_;
  Memory memory_;
  StepContext ctx_;
  std::unique_ptr<Interpreter> entry_;
  std::vector<ExecEvent> events_;
  std::vector<std::string> outputs_;
  uint64_t steps_ = 0;
};

}  // namespace oi::exec
