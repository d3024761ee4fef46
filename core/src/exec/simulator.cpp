// The public Simulator and Executor over exec::Program and exec::Runtime.
#include "openinfer/simulator.hpp"

#include "openinfer/error.hpp"
#include "runtime.hpp"

namespace oi {

Simulator::Simulator(const Model& model, const Graph& graph, std::shared_ptr<Backend> backend,
                     SimulatorOptions options)
    : program_([&] {
        auto program = std::make_shared<exec::Program>(model, graph, std::move(backend),
                                                       std::move(options.fallback), options.catalog,
                                                       std::move(options.placements));
        program->max_table_bytes = options.max_table_bytes;
        return program;
      }()) {}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

const std::vector<std::string>& Simulator::warnings() const {
  return program_->warnings;
}
const Graph& Simulator::graph() const {
  return program_->graph;
}
Executor Simulator::make_executor() const {
  return Executor(program_);
}

Executor::Executor(std::shared_ptr<const exec::Program> program)
    : runtime_(std::make_unique<exec::Runtime>(std::move(program))) {}
Executor::~Executor() = default;
Executor::Executor(Executor&&) noexcept = default;
Executor& Executor::operator=(Executor&&) noexcept = default;

void Executor::insert(std::string_view name, Tensor value) {
  runtime_->insert(name, std::move(value));
}

void Executor::insert(std::initializer_list<std::pair<std::string_view, Tensor>> values) {
  for (const auto& [name, value] : values) runtime_->insert(name, value);
}

Tensor Executor::fetch(std::string_view name) const {
  return runtime_->fetch(name);
}

void Executor::check_fetch_type(std::string_view name, const Tensor& t, DType wanted) {
  if (t.dtype() != wanted) {
    throw input_error("cannot fetch '" + std::string(name) + "' as " +
                      std::string(dtype_name(wanted)) + ": it is " +
                      std::string(dtype_name(t.dtype())));
  }
}

void Executor::step() {
  runtime_->run_step();
}
Executor::StepRange Executor::iterate() {
  return StepRange(runtime_.get());
}
void Executor::set_timing(bool on) {
  runtime_->set_timing(on);
}
bool Executor::timing() const {
  return runtime_->timing();
}
uint64_t Executor::step_count() const {
  return runtime_->step_count();
}
bool Executor::in_step() const {
  return runtime_->in_step();
}
uint64_t Executor::table_bytes() const {
  return runtime_->table_bytes();
}
std::span<const ExecEvent> Executor::events() const {
  return runtime_->events();
}
const std::vector<std::string>& Executor::outputs() const {
  return runtime_->outputs();
}

std::vector<std::string> Executor::declared_names() const {
  std::vector<std::string> out;
  for (const auto& v : runtime_->program().vars) out.push_back(v.name);
  return out;
}

// ---- iterate() -----------------------------------------------------------------------------

namespace {
// Runs entry until the event at the cursor exists; false when the step ended first.
bool fill(exec::Runtime& rt) {
  while (rt.cursor >= rt.events().size()) {
    if (!rt.in_step()) return false;
    rt.advance();
  }
  return true;
}
}  // namespace

Executor::StepRange::iterator Executor::StepRange::begin() {
  iterator it;
  it.runtime_ = runtime_;
  if (runtime_->in_step()) {
    ++runtime_->cursor;  // resume after the last event an earlier loop saw
  } else {
    runtime_->advance();
  }
  it.done_ = !fill(*runtime_);
  return it;
}

const ExecEvent& Executor::StepRange::iterator::operator*() const {
  return runtime_->events().at(runtime_->cursor);
}

Executor::StepRange::iterator& Executor::StepRange::iterator::operator++() {
  ++runtime_->cursor;
  done_ = !fill(*runtime_);
  return *this;
}

}  // namespace oi
