// Node execution and control flow (dsl.md "Blocks and nodes").
#include "interpreter.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "openinfer/error.hpp"
#include "tensor_copy.hpp"

namespace oi::exec {

uint64_t thread_number() {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t id = next++;
  return id;
}

int64_t StepContext::now_ns() const {
  if (!timing) return 0;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              origin)
      .count();
}

namespace {

void check_same_layout(const Tensor& value, DType dtype, const Shape& shape, const VarInfo& v,
                       const SourceLocation& loc) {
  if (value.dtype() != dtype || value.shape() != shape) {
    throw input_error(where(loc) + "cannot store " + std::string(dtype_name(value.dtype())) +
                      shape_to_string(value.shape()) + " into '" + v.name + "' of " +
                      std::string(dtype_name(dtype)) + shape_to_string(shape));
  }
}

}  // namespace

Interpreter::Interpreter(StepContext& ctx, const Block& block, uint32_t track, Overlay* overlay,
                         std::vector<ExecEvent>* events)
    : ctx_(ctx), track_(track), overlay_(overlay), events_(events), thread_id_(thread_number()) {
  push_frame(Frame{&block.nodes, 0, &block});
}

void Interpreter::push_frame(Frame frame) {
  frame.scope_base = scopes_.size();
  frames_.push_back(frame);
}

void Interpreter::pop_frame() {
  scopes_.resize(std::min(scopes_.size(), frames_.back().scope_base));
  frames_.pop_back();
}

void Interpreter::track_scopes(const Block& block, size_t block_frame, const Node& node,
                               ExecEvent& ev) {
  const size_t block_base = frames_[block_frame].scope_base;
  const size_t frame_base = frames_.back().scope_base;
  if (node.scope < 0 && scopes_.size() == block_base) return;  // the common case
  // The node's scopes, outermost first; those below frame_base hold the running loop.
  std::vector<int32_t> chain;
  for (int32_t s = node.scope; s >= 0; s = block.scopes[static_cast<size_t>(s)].parent)
    chain.insert(chain.begin(), s);
  size_t keep = std::max(frame_base, block_base);
  while (keep < scopes_.size() && keep - block_base < chain.size() &&
         scopes_[keep].id == chain[keep - block_base])
    ++keep;
  scopes_.resize(keep);
  for (size_t i = keep - block_base; i < chain.size(); ++i)
    scopes_.push_back({chain[i], next_instance_++});
  const auto& infos = ctx_.program.scopes.at(&block);
  for (size_t i = block_base; i < scopes_.size(); ++i) {
    const auto id = static_cast<size_t>(scopes_[i].id);
    ev.scopes.push_back({block.scopes[id].name, infos[id].path, scopes_[i].instance});
  }
}

Interpreter::~Interpreter() {
  join_consumers();
}

void Interpreter::join_consumers() noexcept {
  for (auto& c : consumers_) {
    if (c->joined) continue;
    try {
      c->group->wait();
    } catch (...) {
      // The step is being abandoned for another error; this one adds nothing.
    }
    c->joined = true;
  }
}

bool Interpreter::step_node() {
  while (!frames_.empty()) {
    Frame& f = frames_.back();
    if (f.pc < f.nodes->size()) break;
    if (f.loop != nullptr && ++f.index < f.end) {
      f.pc = 0;
      scopes_.resize(std::min(scopes_.size(), f.scope_base));  // scopes in the body start anew
      continue;
    }
    pop_frame();  // end of a loop, or a block without `return`
  }
  if (frames_.empty()) return false;
  Frame& f = frames_.back();
  const Node& node = (*f.nodes)[f.pc++];
  ExecEvent ev;
  ev.kind = node.kind;
  for (size_t i = frames_.size(); i-- > 0;) {
    if (frames_[i].loop != nullptr && ev.iteration < 0) ev.iteration = frames_[i].index;
    if (frames_[i].block != nullptr) {
      ev.block = frames_[i].block->name;
      track_scopes(*frames_[i].block, i, node, ev);
      break;
    }
  }
  ev.node_index = node.index;
  ev.node_uuid = node.uuid;
  ev.op_name = node_keyword(node);
  ev.node = &node;
  ev.step = ctx_.step;
  ev.track = track_;
  ev.thread = thread_id_;
  ev.start_ns = ctx_.now_ns();
  execute(node, ev);
  ev.end_ns = ctx_.now_ns();
  events_->push_back(std::move(ev));
  return true;
}

void Interpreter::leave_block() {
  while (!frames_.empty()) {
    bool block = frames_.back().block != nullptr;
    pop_frame();
    if (block) return;
  }
}

void Interpreter::enter_loop(const Node& node) {
  int64_t start = eval(node.start, node.loc);
  int64_t end = eval(node.end, node.loc);
  if (start >= end) return;
  push_frame(Frame{&node.body, 0, nullptr, &node, start, end});
}

void Interpreter::execute(const Node& node, ExecEvent& ev) {
  Tensor& scratch = node_scratch_;
  switch (node.kind) {
    case NodeKind::Assign:
    case NodeKind::Barrier:
    case NodeKind::Dep:
      return;  // temporaries are zeroed lazily; ordering nodes do nothing when run in order
    case NodeKind::Op:
      run_op(node, ev);
      return;
    case NodeKind::Transfer:
    case NodeKind::CacheWrite: {
      const Access& target = node.kind == NodeKind::Transfer ? node.output : node.target;
      if (store_on_device(node.inputs.at(0), target)) return;
      const Tensor& value = read_ref(node.inputs.at(0), scratch);
      store(target, value);
      return;
    }
    case NodeKind::CacheRead: {
      if (read_on_device(node)) return;
      const Tensor& value = read_access(node.target, scratch);
      const VarInfo& dst = var(node.output.name, node.output.loc);
      const VarInfo& src = var(node.target.name, node.target.loc);
      if (src.auto_dim && value.shape() != dst.shape && value.rank() == dst.shape.size() &&
          node.output.slots.empty()) {
        // A @fixed auto_dim matrix read into a destination of the bound's shape: zero padded.
        bool fits = true;
        for (size_t a = 0; a < value.rank(); ++a) fits = fits && value.shape()[a] <= dst.shape[a];
        if (fits) {
          Tensor padded(dst.dtype, dst.shape);
          Shape zero(value.rank(), 0);
          copy_region(value, zero, padded, zero, value.shape());
          store(node.output, padded);
          return;
        }
      }
      store(node.output, value);
      return;
    }
    case NodeKind::CacheIncrement:
    case NodeKind::CacheDecrement: {
      const VarInfo& v = var(node.var, node.loc);
      Tensor& t = ctx_.memory.write(v, node.loc);
      if (t.numel() != 1 || is_float(t.dtype())) {
        throw input_error(where(node.loc) + std::string(node_keyword(node)) + " needs an integer " +
                          "scalar; '" + v.name + "' is " + std::string(dtype_name(t.dtype())) +
                          shape_to_string(t.shape()));
      }
      uint64_t now = static_cast<uint64_t>(t.get_int(0));
      uint64_t amount = static_cast<uint64_t>(node.amount);
      // Unsigned arithmetic wraps; set_int wraps again to the dtype's width.
      uint64_t next = node.kind == NodeKind::CacheIncrement ? now + amount : now - amount;
      if (dtype_class(t.dtype()) == DTypeClass::Bool) next &= 1;
      t.set_int(0, static_cast<int64_t>(next));
      return;
    }
    case NodeKind::CacheReset: {
      const VarInfo& v = var(node.target.name, node.target.loc);
      if (v.table || v.auto_dim) {
        ctx_.memory.reset_table(v, slots_of(node.target), node.loc);
      } else {
        ctx_.memory.reset_plain(v, node.loc);
      }
      return;
    }
    case NodeKind::Loop:
      enter_loop(node);
      return;
    case NodeKind::Branch: {
      std::string target = node.then_block;
      if (!node.cond.empty()) {
        Ref cond{node.cond, {}, node.loc};
        const Tensor& c = read_ref(cond, scratch);
        if (c.numel() != 1) {
          throw input_error(where(node.loc) + "branch condition '" + node.cond +
                            "' is not a scalar");
        }
        if (c.get_float(0) == 0.0) target = node.else_block;
      }
      const Block* block = ctx_.program.graph.find_block(target);
      if (block == nullptr) throw input_error(where(node.loc) + "no block '" + target + "'");
      push_frame(Frame{&block->nodes, 0, block});
      (void)ev;
      return;
    }
    case NodeKind::Return: {
      bool in_entry = false;
      for (size_t i = frames_.size(); i-- > 0;) {
        if (frames_[i].block == nullptr) continue;
        in_entry = frames_[i].block == ctx_.program.entry && i == 0;
        break;
      }
      if (in_entry) outputs_ = node.names;
      leave_block();
      return;
    }
    case NodeKind::Yield:
      if (track_ != 0) {
        leave_block();  // a consumer's terminator
      } else {
        run_yield(node);
      }
      return;
    case NodeKind::Await:
      if (track_ == 0) run_await(node);
      return;
  }
}

// ---- names and accesses --------------------------------------------------------------------

const VarInfo& Interpreter::var(const std::string& name, const SourceLocation& loc) const {
  return ctx_.program.var(name, loc);
}

std::optional<int64_t> Interpreter::loop_index(std::string_view name) const {
  for (size_t i = frames_.size(); i-- > 0;) {
    const Frame& f = frames_[i];
    if (f.loop != nullptr && f.loop->var == name) return f.index;
    if (f.block != nullptr) break;  // indices are not visible in branched-to blocks
  }
  return std::nullopt;
}

int64_t Interpreter::resolve_int(std::string_view name, const SourceLocation& loc) {
  if (auto i = loop_index(name)) return *i;
  if (const VarInfo* v = ctx_.program.find(name)) {
    Tensor* over = overlay_value(*v);
    const Tensor& t = over != nullptr ? *over : ctx_.memory.read(*v, loc);
    try {
      return scalar_int(t);
    } catch (const Error& e) {
      throw input_error(where(loc) + "'" + v->name + "' used as an index or bound: " + e.what());
    }
  }
  if (auto s = ctx_.program.sizevar(name)) return *s;
  throw input_error(where(loc) + "'" + std::string(name) +
                    "' is neither a loop index, a declared scalar nor a size variable");
}

int64_t Interpreter::eval(const Index& index, const SourceLocation& loc) {
  if (index.is_literal()) return index.offset;
  return resolve_int(index.name, loc) + index.offset;
}

int64_t Interpreter::eval(const Bound& bound, const SourceLocation& loc) {
  return bound.is_name() ? resolve_int(bound.name, loc) : bound.value;
}

std::vector<SlotValue> Interpreter::slots_of(const Access& access) {
  std::vector<SlotValue> out;
  for (const Slot& s : access.slots) {
    SlotValue v;
    v.kind = s.kind;
    if (s.kind == Slot::Kind::Index) v.index = eval(s.index, access.loc);
    if (s.start) v.start = eval(*s.start, access.loc);
    if (s.end) v.end = eval(*s.end, access.loc);
    out.push_back(v);
  }
  return out;
}

std::vector<SlotValue> Interpreter::slots_of(const Ref& ref) {
  std::vector<SlotValue> out;
  for (const Index& i : ref.indices) {
    SlotValue v;
    v.kind = Slot::Kind::Index;
    v.index = eval(i, ref.loc);
    out.push_back(v);
  }
  return out;
}

Tensor* Interpreter::overlay_value(const VarInfo& v) {
  if (overlay_ == nullptr) return nullptr;
  auto it = overlay_->values.find(v.id);
  return it == overlay_->values.end() ? nullptr : &it->second;
}

VarState* Interpreter::table_snapshot(const VarInfo& v) {
  if (overlay_ == nullptr) return nullptr;
  auto it = overlay_->tables.find(v.id);
  return it == overlay_->tables.end() ? nullptr : it->second.get();
}

const Tensor& Interpreter::read_ref(const Ref& ref, Tensor& scratch) {
  return read_ref(ref, var(ref.name, ref.loc), scratch);
}

const Tensor& Interpreter::read_ref(const Ref& ref, const VarInfo& v, Tensor& scratch) {
  if (ref.indices.empty()) {
    if (Tensor* over = overlay_value(v)) return *over;
    if (v.table || v.auto_dim) {
      scratch = ctx_.memory.read_table(v, {}, ref.loc, table_snapshot(v));
      return scratch;
    }
    if (v.prefix) {
      throw input_error(where(ref.loc) + "prefix table '" + v.name + "' needs " +
                        std::to_string(v.indices.size()) + " indices");
    }
    return ctx_.memory.read(v, ref.loc);
  }
  auto slots = slots_of(ref);
  if (v.prefix) {
    std::vector<int64_t> index;
    for (const SlotValue& s : slots) index.push_back(s.index);
    if (index.size() != v.indices.size()) {
      throw input_error(where(ref.loc) + "prefix table '" + v.name + "' takes " +
                        std::to_string(v.indices.size()) + " indices, got " +
                        std::to_string(index.size()));
    }
    return ctx_.memory.prefix_entry(v, index, ref.loc);
  }
  if (!v.table && !v.auto_dim) {
    throw input_error(where(ref.loc) + "'" + v.name + "' is not a table and takes no indices");
  }
  scratch = ctx_.memory.read_table(v, slots, ref.loc, table_snapshot(v));
  return scratch;
}

const Tensor& Interpreter::read_access(const Access& access, Tensor& scratch) {
  if (!access.has_brackets || access.is_plain_ref()) {
    Ref ref{access.name, {}, access.loc};
    for (const Slot& s : access.slots) ref.indices.push_back(s.index);
    const VarInfo& v = var(access.name, access.loc);
    if (!access.has_brackets || v.prefix || !(v.table || v.auto_dim) ||
        access.slots.size() == v.indices.size()) {
      return read_ref(ref, scratch);
    }
  }
  const VarInfo& v = var(access.name, access.loc);
  if (!v.table && !v.auto_dim) {
    throw input_error(where(access.loc) + "'" + v.name + "' is not a persistent table; slices " +
                      "need one");
  }
  scratch = ctx_.memory.read_table(v, slots_of(access), access.loc, table_snapshot(v));
  return scratch;
}

Tensor& Interpreter::plain_output(const Access& access, bool whole) {
  const VarInfo& v = var(access.name, access.loc);
  if (Tensor* over = overlay_value(v)) {
    overlay_->written.insert(v.id);
    return *over;
  }
  if (v.prefix || v.table || v.auto_dim) {
    throw input_error(where(access.loc) + "'" + v.name + "' is a table: write one entry with " +
                      "indices");
  }
  return whole ? ctx_.memory.replace(v, access.loc) : ctx_.memory.write(v, access.loc);
}

void Interpreter::store(const Access& access, const Tensor& value) {
  const VarInfo& v = var(access.name, access.loc);
  if (access.has_brackets || ((v.table || v.auto_dim) && overlay_value(v) == nullptr)) {
    if (v.prefix) {
      throw input_error(where(access.loc) + "prefix table '" + v.name + "' is read from the " +
                        "model; its entries cannot be written");
    }
    if (!v.table && !v.auto_dim) {
      throw input_error(where(access.loc) + "'" + v.name + "' is not a table and takes no " +
                        "indices");
    }
    ctx_.memory.write_table(v, slots_of(access), value, access.loc);
    return;
  }
  Tensor& dst = plain_output(access, true);  // replaced whole: no download of a newer copy
  check_same_layout(value, v.dtype, v.shape, v, access.loc);
  if (&dst == &value) return;
  if (dst.is_view() || dst.nbytes() != value.nbytes()) {
    dst = Tensor(v.dtype, v.shape);
  }
  // A zero-sized value has no storage (null data): memcpy must not see it.
  if (value.nbytes() > 0)
    std::memcpy(dst.mutable_bytes().data(), value.bytes().data(), value.nbytes());
}

// ---- yield and await -----------------------------------------------------------------------

void Interpreter::run_yield(const Node& node) {
  auto it = ctx_.program.consumers.find(&node);
  if (it == ctx_.program.consumers.end()) return;
  // Snapshot once; each consumer starts from its own copy of it.
  std::unordered_map<size_t, Tensor> snapshot;
  for (const std::string& name : node.names) {
    const VarInfo& v = var(name, node.loc);
    snapshot.emplace(v.id, ctx_.memory.read(v, node.loc));
  }
  const bool sequential = ctx_.program.sequential_yields.count(&node) > 0;
  // Tables that one consumer writes and another awaits where no order serves (a cycle): the
  // readers get a copy as yielded, taken before any consumer starts.
  std::unordered_map<size_t, std::shared_ptr<VarState>> tables;
  auto frozen = ctx_.program.snapshot_tables.find(&node);
  std::vector<Consumer*> started;
  for (const Block* block : it->second) {
    auto c = std::make_unique<Consumer>();
    c->block = block;
    for (const std::string& name : block->nodes.front().names) {
      const VarInfo& v = var(name, node.loc);
      c->overlay.values.emplace(v.id, snapshot.at(v.id));
    }
    if (frozen != ctx_.program.snapshot_tables.end()) {
      auto list = frozen->second.find(block);
      if (list != frozen->second.end()) {
        for (const VarInfo* v : list->second) {
          auto& copy = tables[v->id];
          if (!copy) copy = ctx_.memory.table_snapshot(*v);
          c->overlay.tables.emplace(v->id, copy);
        }
      }
    }
    started.push_back(c.get());
    consumers_.push_back(std::move(c));
  }
  StepContext* ctx = &ctx_;
  auto run = [ctx](Consumer* c) {
    Interpreter consumer(*ctx, *c->block, ctx->program.consumer_track.at(c->block), &c->overlay,
                         &c->events);
    consumer.run_to_end();
  };
  if (sequential) {  // in the listed order, stopping at the first error
    auto group = std::make_shared<tbb::task_group>();
    for (Consumer* c : started) c->group = group;
    group->run([run, started] {
      for (Consumer* c : started) run(c);
    });
    return;
  }
  for (Consumer* c : started) {
    c->group = std::make_shared<tbb::task_group>();
    c->group->run([run, c] { run(c); });
  }
}

void Interpreter::run_await(const Node& node) {
  for (auto& c : consumers_) {
    if (c->joined) continue;
    const auto& awaited = c->block->nodes.front().names;
    bool relevant = false;
    for (const std::string& n : node.names)
      relevant = relevant || std::find(awaited.begin(), awaited.end(), n) != awaited.end();
    if (!relevant) continue;
    c->joined = true;
    c->group->wait();  // rethrows the consumer's error
    events_->insert(events_->end(), c->events.begin(), c->events.end());
    for (size_t id : c->overlay.written) {
      const VarInfo& v = ctx_.program.vars[id];
      Tensor& dst = ctx_.memory.write(v, node.loc);
      dst = std::move(c->overlay.values.at(id));
    }
  }
}

}  // namespace oi::exec
