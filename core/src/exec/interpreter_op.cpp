// `op` nodes: operands become backend buffers (zero-copy where the backend can use host
// memory, else uploaded and downloaded), then the kernel runs through Backend::run.
#include <tbb/task_arena.h>

#include <cstring>

#include "interpreter.hpp"
#include "openinfer/error.hpp"

namespace oi::exec {
namespace {

// The buffers of one op call; the same host memory always maps to the same buffer, so an
// in-place output shares its input's buffer as the ABI requires.
class OperandBuffers {
 public:
  using List = std::vector<std::pair<const std::byte*, std::shared_ptr<DeviceBuffer>>>;
  OperandBuffers(BackendSlot& slot, const Model& model, bool cache_allowed, List& local)
      : slot_(slot),
        model_(model),
        backend_(*slot.backend),
        wrap_(backend_.can_wrap_host_memory()),
        cache_(cache_allowed),
        local_(local) {
    local_.clear();
  }
  ~OperandBuffers() { local_.clear(); }

  const DeviceBuffer* get(const Tensor& t, VarState* state) {
    const std::byte* data = t.bytes().data();
    for (auto& [ptr, buf] : local_)
      if (ptr == data) return buf.get();
    if (wrap_ && cache_ && state != nullptr && state->buffer && state->buffer_data == data &&
        state->buffer_bytes == t.nbytes() && state->buffer_backend == &backend_) {
      return state->buffer.get();  // the common case: no new buffer, no reference counting
    }
    std::shared_ptr<DeviceBuffer> buf;
    if (wrap_) {
      buf = backend_.wrap_host(const_cast<std::byte*>(data), t.nbytes());
      if (cache_ && state != nullptr) {
        state->buffer = buf;
        state->buffer_data = data;
        state->buffer_bytes = t.nbytes();
        state->buffer_backend = &backend_;
      }
    } else if (t.is_view() && t.nbytes() > 0 && model_.holds(data, t.nbytes())) {
      std::lock_guard lock(slot_.resident_mutex);
      auto& [bytes, resident] = slot_.resident[data];
      if (!resident || bytes != t.nbytes()) {
        resident = backend_.alloc(t.nbytes());
        backend_.upload(*resident, 0, t.bytes());
        bytes = t.nbytes();
      }
      buf = resident;
    } else {
      buf = backend_.alloc(t.nbytes());
      backend_.upload(*buf, 0, t.bytes());
    }
    local_.emplace_back(data, buf);
    return buf.get();
  }
  // Copies the output back when it lives in device memory.
  void finish(const DeviceBuffer* buffer, Tensor& out) {
    if (wrap_) return;
    backend_.download(*buffer, 0, out.mutable_bytes());
  }

 private:
  BackendSlot& slot_;
  const Model& model_;
  Backend& backend_;
  bool wrap_;
  bool cache_;
  List& local_;
};

KernelValue setting_value(SettingKind kind, int64_t i, double d, bool is_float) {
  switch (kind) {
    case SettingKind::Number:
      return KernelValue(is_float ? d : static_cast<double>(i));
    case SettingKind::Bool:
      return KernelValue(i != 0);
    default:
      return KernelValue(i);
  }
}

}  // namespace

void Interpreter::run_op(const Node& node) {
  const OpPlan& plan = ctx_.program.ops.at(&node);
  const VarInfo& out_var = *plan.output_var;

  // The output first: making it owned may move a model view, and in-place inputs must see the
  // same memory.
  Tensor staged;  // used when the result goes to a table or must not alias an input
  Tensor* out = nullptr;
  bool direct = !node.output.has_brackets && !out_var.table && !out_var.auto_dim &&
                !(plan.output_aliases_input && plan.mode != KernelMode::InPlace);
  if (direct) {
    out = &plain_output(node.output);
    out->mutable_bytes();
  } else if (node.output.has_brackets || out_var.table || out_var.auto_dim) {
    Tensor current;
    staged = read_access(node.output, current);  // has the access's shape
    out = &staged;
  } else {
    staged = Tensor(out_var.dtype, out_var.shape);
    out = &staged;
  }
  VarState* out_state =
      direct && overlay_value(out_var) == nullptr ? &ctx_.memory.state(out_var) : nullptr;

  if (op_scratch_.size() < node.inputs.size()) op_scratch_.resize(node.inputs.size());
  auto& inputs = op_inputs_;
  auto& states = op_states_;
  inputs.clear();
  states.clear();
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Ref& ref = node.inputs[i];
    const VarInfo& v = *plan.input_vars[i];
    inputs.push_back(&read_ref(ref, v, op_scratch_[i]));
    bool cached = ref.indices.empty() && !v.table && !v.auto_dim && overlay_value(v) == nullptr;
    states.push_back(cached ? &ctx_.memory.state(v) : nullptr);
  }

  auto& dynamic = op_settings_;
  dynamic.clear();
  if (plan.dynamic_settings) {
    for (const PlannedSetting& s : plan.settings) {
      if (!s.ident) {
        dynamic.push_back({s.name, s.value});
        continue;
      }
      const std::string& name = s.ident->text;
      if (auto idx = loop_index(name)) {
        dynamic.push_back({s.name, setting_value(s.kind, *idx, 0.0, false)});
      } else if (const VarInfo* v = ctx_.program.find(name)) {
        const Tensor& t = ctx_.memory.read(*v, node.loc);
        if (t.numel() != 1) {
          throw input_error(where(node.loc) + "setting '" + s.name + "' names '" + name +
                            "', which is not a scalar");
        }
        bool f = is_float(t.dtype());
        dynamic.push_back({s.name, setting_value(s.kind, f ? 0 : t.get_int(0), t.get_float(0), f)});
      } else if (auto sv = ctx_.program.sizevar(name)) {
        dynamic.push_back({s.name, setting_value(s.kind, *sv, 0.0, false)});
      } else {
        throw input_error(where(node.loc) + "setting '" + s.name + "' names '" + name +
                          "', which is neither a loop index, a variable nor a size variable");
      }
    }
  }
  const auto& settings = plan.dynamic_settings ? dynamic : plan.static_settings;

  if (out->nbytes() > 0) {
    Backend& backend = *plan.backend->backend;
    OperandBuffers buffers(*plan.backend, ctx_.program.model, track_ == 0, op_buffers_);
    const DeviceBuffer* out_buffer = buffers.get(*out, out_state);
    auto& in_args = op_args_;
    in_args.clear();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = *inputs[i];
      in_args.push_back(TensorArg{t.dtype(), t.shape(), buffers.get(t, states[i]), 0});
    }
    TensorArg out_arg{out->dtype(), out->shape(), out_buffer, 0};
    // Isolated: a kernel that waits on its own oneTBB work must not pick up a consumer task
    // here, which would then wait for the lock this thread holds.
    tbb::this_task_arena::isolate([&] {
      const auto outs = std::span<const TensorArg>(&out_arg, 1);
      if (plan.backend->concurrent) {
        backend.run(*plan.kernel, in_args, outs, settings);
      } else {
        std::lock_guard lock(plan.backend->run_mutex);
        backend.run(*plan.kernel, in_args, outs, settings);
      }
    });
    buffers.finish(out_buffer, *out);
  }
  if (!direct) store(node.output, staged);
}

}  // namespace oi::exec
