// `op` nodes: operands become backend buffers (zero-copy where the backend can use host
// memory, else uploaded and downloaded), then the kernel runs through Backend::run.
#include <tbb/task_arena.h>

#include <cstring>

#include "interpreter.hpp"
#include "openinfer/broadcast.hpp"
#include "openinfer/error.hpp"
#include "openinfer/shift_bits.hpp"
#include "tensor_copy.hpp"

namespace oi::exec {
namespace {

// The buffers of one op call; the same host memory always maps to the same buffer, so an
// in-place output shares its input's buffer as the ABI requires. On a device backend, plain
// variables keep their device copy (VarState::device): inputs already there are not uploaded,
// and outputs stay there until the host reads them.
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

  bool on_device() const { return !wrap_; }

  // An operand; `state` is the variable's when the tensor is its whole plain value.
  // `fill` is false for an output the kernel overwrites without reading.
  const DeviceBuffer* get(const Tensor& t, VarState* state, bool fill = true) {
    const std::byte* data = t.bytes().data();
    for (auto& [ptr, buf] : local_)
      if (ptr == data) return buf.get();
    if (wrap_) return wrapped(t, state);
    std::shared_ptr<DeviceBuffer> buf;
    if (t.is_view() && t.nbytes() > 0 && model_.holds(data, t.nbytes())) {
      std::lock_guard lock(slot_.resident_mutex);
      auto& [bytes, resident] = slot_.resident[data];
      if (!resident || bytes != t.nbytes()) {
        resident = backend_.alloc(t.nbytes());
        backend_.upload(*resident, 0, t.bytes());
        bytes = t.nbytes();
      }
      buf = resident;
    } else if (state != nullptr && cache_) {
      const bool here = state->device && state->device_backend == &backend_ &&
                        state->device->size() == t.nbytes();
      if (here && state->device_valid) {
        buf = state->device;  // already on this device: nothing crosses the bus
      } else {
        if (state->host_stale) Memory::sync_host(*state);  // newer on another device
        buf = here ? state->device : backend_.alloc(t.nbytes());
        if (fill) {
          backend_.upload(*buf, 0, t.bytes());
          Memory::share_device(*state, buf, backend_);  // later nodes find it there
        }
      }
    } else {
      buf = backend_.alloc(t.nbytes());
      if (fill) backend_.upload(*buf, 0, t.bytes());
    }
    local_.emplace_back(data, std::move(buf));  // one reference count taken, not two
    return local_.back().second.get();
  }
  // After the kernel: a device output stays on the device when it is a variable's whole value
  // (`state`), else it is copied back into `out`.
  // Returns true when the output stayed on the device.
  bool finish(const DeviceBuffer* buffer, Tensor& out, VarState* state) {
    if (wrap_) return false;
    if (state != nullptr && cache_) {
      for (auto& [ptr, buf] : local_) {
        if (buf.get() == buffer) {
          Memory::adopt_device(*state, buf, backend_);
          return true;
        }
      }
    }
    backend_.download(*buffer, 0, out.mutable_bytes());
    return false;
  }

 private:
  const DeviceBuffer* wrapped(const Tensor& t, VarState* state) {
    const std::byte* data = t.bytes().data();
    if (cache_ && state != nullptr && state->buffer && state->buffer_data == data &&
        state->buffer_bytes == t.nbytes() && state->buffer_backend == &backend_) {
      return state->buffer.get();  // the common case: no new buffer, no reference counting
    }
    auto buf = backend_.wrap_host(const_cast<std::byte*>(data), t.nbytes());
    if (cache_ && state != nullptr) {
      state->buffer = buf;
      state->buffer_data = data;
      state->buffer_bytes = t.nbytes();
      state->buffer_backend = &backend_;
    }
    local_.emplace_back(data, buf);
    return buf.get();
  }

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

// `value` repeated over `shape` (numpy broadcasting; it broadcasts to it).
Tensor broadcast_to(const Tensor& value, const Shape& shape) {
  Tensor out(value.dtype(), shape);
  const auto strides = geometry::broadcast_strides(value.shape(), shape);
  std::vector<uint64_t> at(shape.size(), 0);
  for (uint64_t n = 0, total = out.numel(); n < total; ++n) {
    uint64_t src = 0;
    for (size_t k = 0; k < shape.size(); ++k) src += at[k] * strides[k];
    copy_elements(value, src, out, n, 1);
    for (size_t k = shape.size(); k-- > 0;) {  // the next position, last axis fastest
      if (++at[k] < shape[k]) break;
      at[k] = 0;
    }
  }
  return out;
}

}  // namespace

bool Interpreter::inputs_on_host(const Node& node, const OpPlan& plan) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const VarInfo& v = *plan.input_vars[i];
    if (overlay_value(v) != nullptr) continue;  // a consumer's own copy
    if (ctx_.memory.host_stale(v)) return false;
  }
  return true;
}

void Interpreter::run_op(const Node& node, ExecEvent& ev) {
  const OpPlan& plan = ctx_.program.ops.at(&node);
  BackendSlot* fallback = ctx_.program.fallback.get();
  // A tiny result of host values is computed on the host (kHostOpBytes in program.hpp).
  const bool on_host = plan.host_kernel != nullptr && inputs_on_host(node, plan);
  BackendSlot& slot = on_host ? *fallback : *plan.backend;
  ev.backend = slot.backend->name();
  try {
    if (on_host) {
      run_op_on(node, plan, slot, *plan.host_kernel, plan.mode);
    } else {
      run_op_on(node, plan, slot, *plan.kernel, plan.mode);
    }
    return;
  } catch (const KernelDeclined& declined) {
    // The kernel took nothing of this call (plugin_abi.h: it declines before writing or
    // queueing anything), so the node runs again, whole, on the other backend: inputs read to
    // its memory, the output written back, as for an op the backend lacks. Only this call:
    // the next one tries the node's own backend again.
    BackendSlot* other = on_host ? plan.backend : plan.decline_backend;
    const Kernel* kernel = on_host ? plan.kernel : plan.decline_kernel;
    if (other == nullptr || kernel == nullptr || other == &slot) {
      std::string why;
      if (fallback == nullptr) {
        why = "no fallback backend is loaded to run it";
      } else if (fallback == &slot) {  // the node was on the fallback: the primary lacks the op
        why = "backend '" + ctx_.program.primary->backend->name() + "' has no kernel for it";
      } else {
        why = "the fallback backend '" + fallback->backend->name() + "' has no kernel for it";
      }
      throw input_error(where(node.loc) + declined.what() + "; " + why);
    }
    ev.declined_by = slot.backend->name();
    ev.decline_reason = declined.reason();
    ev.backend = other->backend->name();
    try {
      run_op_on(node, plan, *other, *kernel, on_host ? plan.mode : plan.decline_mode);
    } catch (const KernelDeclined& again) {
      throw input_error(where(node.loc) + declined.what() + ", and " + again.what());
    }
  }
}

void Interpreter::run_op_on(const Node& node, const OpPlan& plan, BackendSlot& slot,
                            const Kernel& kernel, KernelMode mode) {
  const VarInfo& out_var = *plan.output_var;

  // Values stay in a device backend's memory between nodes (entry's interpreter only:
  // consumers run concurrently on snapshots and copy through the host).
  const bool resident = !slot.backend->can_wrap_host_memory() && track_ == 0;

  // The output first: making it owned may move a model view, and in-place inputs must see the
  // same memory.
  Tensor staged;  // used when the result goes to a table or must not alias an input
  Tensor* out = nullptr;
  const bool plain = !node.output.has_brackets && !out_var.table && !out_var.auto_dim;
  const bool overlaid = overlay_value(out_var) != nullptr;
  bool direct = plain && !(plan.output_aliases_input && mode != KernelMode::InPlace);
  // A table entry (or slice) written on the device goes into the table's device copy.
  bool table_device = resident && !plain && !overlaid && mode == KernelMode::Normal &&
                      ctx_.memory.device_table_capable(out_var);
  std::vector<SlotValue> table_slots;
  Shape table_shape;
  if (table_device) {
    table_slots = slots_of(node.output);
    table_shape = ctx_.memory.table_access_shape(out_var, table_slots, node.output.loc);
    out = &staged;  // unused: the kernel writes the table's staging buffer
  } else if (direct) {
    out = resident && !overlaid ? &ctx_.memory.write(out_var, node.output.loc, HostSync::No)
                                : &plain_output(node.output, mode == KernelMode::Normal);
    out->mutable_bytes();
  } else if (!plain) {
    Tensor current;
    staged = read_access(node.output, current);  // has the access's shape
    out = &staged;
  } else {
    staged = Tensor(out_var.dtype, out_var.shape);
    out = &staged;
  }
  VarState* out_state = plain && !overlaid ? &ctx_.memory.state(out_var) : nullptr;

  if (op_scratch_.size() < node.inputs.size()) op_scratch_.resize(node.inputs.size());
  auto& inputs = op_inputs_;
  auto& states = op_states_;
  inputs.clear();
  states.clear();
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Ref& ref = node.inputs[i];
    const VarInfo& v = *plan.input_vars[i];
    bool cached =
        ref.indices.empty() && !v.table && !v.auto_dim && !v.prefix && overlay_value(v) == nullptr;
    inputs.push_back(cached && resident ? &ctx_.memory.read(v, ref.loc, HostSync::No)
                                        : &read_ref(ref, v, op_scratch_[i]));
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
  // A `bits` named by a loop index, a scalar or a size variable: the validator's range (ops.md)
  // checked here, before a kernel shifts by a count its dtype does not take.
  for (const auto& s : dynamic) {
    const auto* bits = std::get_if<int64_t>(&s.value);
    if (s.name != "bits" || !bits || inputs.empty()) continue;
    const DType t = inputs[0]->dtype();
    if (!shift_bits_in_range(*bits, dtype_bits(t)))
      throw input_error(where(node.loc) + shift_bits_message(node.op, std::to_string(*bits),
                                                             dtype_bits(t), dtype_name(t)));
  }
  const auto& settings = plan.dynamic_settings ? dynamic : plan.static_settings;

  // An operand shaped at run time (a table slice, an @auto_dim matrix, a prefix entry): the
  // result's shape by the op's rule, checked before a kernel reads or writes past a buffer.
  std::optional<Shape> spread_to;  // the access a smaller result is broadcast over
  if (plan.runtime_shape) {
    const Shape target = table_device ? table_shape : out->shape();
    Shape shape = op_result_shape(*plan.runtime_shape, node.op, inputs, settings, target, node.loc);
    if (shape != target) {
      const auto common = geometry::broadcast_shape(shape, target);
      // acc= adds into the access in place: only a kernel that broadcasts its inputs to its
      // output (elementwise with broadcasting) can run over the larger access.
      const OpSchema& op = *plan.runtime_shape->schema;
      const bool spreads = op.shape_rule == "broadcast" && op.broadcast;
      if (plain || (mode == KernelMode::Accumulate && (common != target || !spreads))) {
        throw input_error(where(node.loc) + "op '" + node.op + "' produces shape " +
                          shape_to_string(shape) + " but " +
                          (plain ? "output '" : "the access to '") + node.output.name +
                          "' has shape " + shape_to_string(target));
      }
      // Into a table: a result that broadcasts to the access fills it (dsl.md); another is
      // stored as cache.write stores it, which refuses it naming the access.
      if (mode != KernelMode::Accumulate) {
        if (common == target) spread_to = target;
        staged = Tensor(out_var.dtype, shape);
        out = &staged;
        table_device = false;
      }
    }
  }

  bool kept_on_device = false;
  uint64_t table_bytes = 0;
  if (table_device) {
    uint64_t numel = 1;
    for (uint64_t d : table_shape) numel *= d;
    table_bytes = storage_bytes(out_var.dtype, numel).value_or(0);
  }
  if (table_device ? table_bytes > 0 : out->nbytes() > 0) {
    Backend& backend = *slot.backend;
    OperandBuffers buffers(slot, ctx_.program.model, track_ == 0, op_buffers_);
    std::shared_ptr<DeviceBuffer> table_out;
    if (table_device) table_out = ctx_.memory.table_staging(out_var, backend, table_bytes);
    // A staged output gets a buffer of its own (its variable's may be an input).
    const DeviceBuffer* out_buffer =
        table_device ? table_out.get()
                     : buffers.get(*out, direct ? out_state : nullptr, mode == KernelMode::InPlace);
    auto& in_args = op_args_;
    in_args.clear();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = *inputs[i];
      in_args.push_back(TensorArg{t.dtype(), t.shape(), buffers.get(t, states[i]), 0});
    }
    TensorArg out_arg = table_device ? TensorArg{out_var.dtype, table_shape, out_buffer, 0}
                                     : TensorArg{out->dtype(), out->shape(), out_buffer, 0};
    // Isolated: a kernel that waits on its own oneTBB work must not pick up a consumer task
    // here, which would then wait for the lock this thread holds.
    tbb::this_task_arena::isolate([&] {
      const auto outs = std::span<const TensorArg>(&out_arg, 1);
      if (slot.concurrent) {
        backend.run(kernel, in_args, outs, settings);
      } else {
        std::lock_guard lock(slot.run_mutex);
        backend.run(kernel, in_args, outs, settings);
      }
    });
    if (table_device) {
      ctx_.memory.write_table_device(out_var, table_slots, backend, *table_out, 0, node.output.loc);
    }
    // Timed runs measure each node's own work: a device backend that runs asynchronously would
    // otherwise charge it to whichever later node waits.
    if (ctx_.timing && resident) backend.synchronize();
    if (table_device) return;
    if (resident && plain && !direct && out_state != nullptr) {
      ctx_.memory.write(out_var, node.output.loc, HostSync::No);  // the whole value is replaced
    }
    kept_on_device = buffers.finish(out_buffer, *out, resident && plain ? out_state : nullptr);
  }
  if (!direct && !kept_on_device && !table_device)
    store(node.output, spread_to ? broadcast_to(staged, *spread_to) : staged);
}

}  // namespace oi::exec
