#include "runtime.hpp"

#include "openinfer/error.hpp"

namespace oi::exec {

Runtime::Runtime(std::shared_ptr<const Program> program)
    : program_(std::move(program)),
      memory_(*program_),
      ctx_{*program_, memory_, false, 0, std::chrono::steady_clock::now()} {}

Runtime::~Runtime() {
  abort_step();
}

const VarInfo& Runtime::lookup(std::string_view name, std::string_view what) const {
  if (const VarInfo* v = program_->find(name)) return *v;
  std::string names;
  for (const VarInfo& v : program_->vars) names += (names.empty() ? "" : ", ") + v.name;
  throw input_error("cannot " + std::string(what) + " '" + std::string(name) +
                    "': the graph declares no such variable (declared: " + names + ")");
}

void Runtime::insert(std::string_view name, Tensor value) {
  const VarInfo& v = lookup(name, "insert");
  if (in_step()) {
    throw input_error("cannot insert '" + v.name + "' while a step is running: insert between " +
                      "steps");
  }
  if (v.kind != VarKind::Dynamic) {
    throw input_error("cannot insert '" + v.name + "': it is " +
                      std::string(var_kind_name(v.kind)) +
                      " memory, and only dynamic memory is filled by the host");
  }
  if (value.dtype() != v.dtype || value.shape() != v.shape) {
    throw input_error("cannot insert " + std::string(dtype_name(value.dtype())) +
                      shape_to_string(value.shape()) + " into '" + v.name + "', declared " +
                      std::string(dtype_name(v.dtype)) + shape_to_string(v.shape));
  }
  memory_.insert(v, std::move(value));
}

Tensor Runtime::fetch(std::string_view name) {
  const VarInfo& v = lookup(name, "fetch");
  SourceLocation none;
  if (v.table || v.auto_dim) return memory_.read_table(v, {}, none);
  if (v.prefix) {
    throw input_error("cannot fetch prefix table '" + v.name + "' as a whole: it names model " +
                      "tensors (fetch them from the model)");
  }
  if (v.kind == VarKind::Dynamic && !memory_.has_value(v)) {
    throw input_error("cannot fetch dynamic '" + v.name + "': it was never inserted or written");
  }
  return memory_.read(v, none);
}

void Runtime::begin_step() {
  memory_.begin_step();
  memory_.set_in_step(true);
  events_.clear();
  cursor = 0;
  outputs_.clear();
  ctx_.step = steps_;
  entry_ = std::make_unique<Interpreter>(ctx_, *program_->entry, 0, nullptr, &events_);
}

void Runtime::end_step() {
  entry_->join_consumers();
  outputs_ = entry_->outputs();
  entry_.reset();
  memory_.set_in_step(false);
  memory_.commit();
  ++steps_;
}

void Runtime::abort_step() noexcept {
  if (!entry_) return;
  entry_->join_consumers();
  entry_.reset();
  memory_.set_in_step(false);
}

bool Runtime::advance() {
  if (!entry_) begin_step();
  try {
    if (entry_->step_node()) return true;
  } catch (...) {
    // A failed step leaves persistent memory as it was before it (docs/runtime.md).
    abort_step();
    memory_.rollback();
    throw;
  }
  end_step();
  return false;
}

void Runtime::run_step() {
  while (advance()) {
  }
}

}  // namespace oi::exec
