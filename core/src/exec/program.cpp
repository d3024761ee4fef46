// Builds the Program: validation, variable layouts and one kernel per op node.
#include "program.hpp"

#include <algorithm>
#include <set>

#include "../validate/graph_index.hpp"
#include "openinfer/consumer_order.hpp"
#include "openinfer/error.hpp"

namespace oi::exec {

std::string_view var_kind_name(VarKind kind) {
  switch (kind) {
    case VarKind::Dynamic:
      return "dynamic";
    case VarKind::Volatile:
      return "volatile";
    case VarKind::Constant:
      return "constant";
    case VarKind::Persistent:
      return "persistent";
    case VarKind::Temporary:
      return "temporary";
  }
  return "?";
}

std::string where(const SourceLocation& loc) {
  return loc.origin.empty() && loc.line == 0 ? std::string() : loc.to_string() + ": ";
}

namespace {

VarKind to_var_kind(MemoryKind m) {
  switch (m) {
    case MemoryKind::Dynamic:
      return VarKind::Dynamic;
    case MemoryKind::Volatile:
      return VarKind::Volatile;
    case MemoryKind::Constant:
      return VarKind::Constant;
    case MemoryKind::Persistent:
      return VarKind::Persistent;
  }
  return VarKind::Volatile;
}

std::string dtype_list(std::span<const DType> dtypes) {
  std::string out;
  for (DType t : dtypes) out += (out.empty() ? "" : ", ") + std::string(dtype_name(t));
  return "(" + out + ")";
}

// A literal setting converted to what the kernel expects; nullopt when it does not fit.
std::optional<KernelValue> literal_setting(const Value& v, SettingKind kind) {
  switch (kind) {
    case SettingKind::Int:
      if (v.kind == Value::Kind::Int) return KernelValue(v.int_value);
      if (v.kind == Value::Kind::Float && v.float_value == static_cast<int64_t>(v.float_value))
        return KernelValue(static_cast<int64_t>(v.float_value));
      break;
    case SettingKind::Number:
      if (v.kind == Value::Kind::Int) return KernelValue(v.int_as_double());
      if (v.kind == Value::Kind::Float) return KernelValue(v.float_value);
      break;
    case SettingKind::Bool:
      if (v.kind == Value::Kind::Bool) return KernelValue(v.bool_value);
      if (v.kind == Value::Kind::Int && !v.above_int64 && (v.int_value == 0 || v.int_value == 1))
        return KernelValue(v.int_value == 1);
      break;
    case SettingKind::String:
      if (v.kind == Value::Kind::String || v.kind == Value::Kind::Ident) return KernelValue(v.text);
      break;
    case SettingKind::DType:
      if (v.kind == Value::Kind::DType) return KernelValue(v.dtype);
      if (v.kind == Value::Kind::Ident) {
        if (auto t = dtype_from_name(v.text)) return KernelValue(*t);
      }
      break;
    case SettingKind::IntList:
      if (v.kind == Value::Kind::IntList) return KernelValue(v.ints);
      break;
  }
  return std::nullopt;
}

}  // namespace

Program::Program(const Model& m, const Graph& g, std::shared_ptr<Backend> backend,
                 std::shared_ptr<Backend> fallback_backend, const OpCatalog* catalog_ptr,
                 std::vector<std::shared_ptr<Backend>> placements)
    : graph(g), model(m) {
  if (!backend) throw input_error("Simulator: no backend given");
  const OpCatalog& catalog = catalog_or_builtin(catalog_ptr);
  warnings = validate_or_throw(graph, catalog, model);
  graph.number_nodes();
  entry = graph.find_block("entry");
  if (entry == nullptr) throw input_error("graph '" + graph.origin + "' has no block 'entry'");
  primary = std::make_unique<BackendSlot>();
  primary->backend = std::move(backend);
  primary->concurrent = (primary->backend->features() & OI_FEATURE_CONCURRENT_KERNELS) != 0;
  if (fallback_backend && fallback_backend != primary->backend) {
    fallback = std::make_unique<BackendSlot>();
    fallback->backend = std::move(fallback_backend);
    fallback->concurrent = (fallback->backend->features() & OI_FEATURE_CONCURRENT_KERNELS) != 0;
  }
  for (std::shared_ptr<Backend>& b : placements) {
    if (!b || slot_named(b->name()) != nullptr) continue;
    auto slot = std::make_unique<BackendSlot>();
    slot->concurrent = (b->features() & OI_FEATURE_CONCURRENT_KERNELS) != 0;
    slot->backend = std::move(b);
    placed.push_back(std::move(slot));
  }
  for (const Block& block : graph.blocks) {
    auto& infos = scopes[&block];
    for (size_t i = 0; i < block.scopes.size(); ++i) {
      const auto id = static_cast<int32_t>(i);
      infos.push_back({scope_path(block, id), scope_hints(block, id)});
    }
  }
  add_variables();
  plan_ops(catalog);
  find_consumers(catalog);
}

BackendSlot* Program::slot_named(std::string_view name) const {
  for (BackendSlot* slot : {primary.get(), fallback.get()})
    if (slot != nullptr && slot->backend->name() == name) return slot;
  for (const auto& slot : placed)
    if (slot->backend->name() == name) return slot.get();
  return nullptr;
}

const VarInfo* Program::find(std::string_view name) const {
  auto it = var_ids.find(std::string(name));
  return it == var_ids.end() ? nullptr : &vars[it->second];
}

const VarInfo& Program::var(std::string_view name, const SourceLocation& loc) const {
  if (const VarInfo* v = find(name)) return *v;
  throw input_error(where(loc) + "unknown variable '" + std::string(name) + "'");
}

std::optional<int64_t> Program::sizevar(std::string_view name) const {
  if (auto v = model.find_sizevar(name)) return static_cast<int64_t>(*v);
  return std::nullopt;
}

Shape Program::resolve_dims(const std::vector<Dim>& dims, const SourceLocation& loc) const {
  Shape shape;
  for (const Dim& dim : dims) {
    uint64_t n = 1;
    for (const DimFactor& f : dim.factors) {
      if (!f.is_sizevar()) {
        n *= static_cast<uint64_t>(f.value);
        continue;
      }
      auto v = model.find_sizevar(f.sizevar);
      if (!v) throw input_error(where(loc) + "unknown size variable '" + f.sizevar + "'");
      n *= *v;
    }
    shape.push_back(n);
  }
  return shape;
}

void Program::add_variables() {
  for (const VarDecl& decl : graph.decls) {
    VarInfo info;
    info.id = vars.size();
    info.name = decl.name;
    info.kind = to_var_kind(decl.memory);
    info.dtype = decl.dtype;
    info.shape = resolve_dims(decl.dims, decl.loc);
    info.decl = &decl;
    info.indices = decl.indices;
    info.link = decl.ref.value_or(decl.name);
    bool indexed = !decl.indices.empty();
    info.prefix = indexed && (info.kind == VarKind::Volatile || info.kind == VarKind::Constant);
    info.auto_dim = !decl.auto_dim.empty();
    for (size_t i = 0; i < decl.indices.size(); ++i) {
      bool is_auto = std::find(decl.auto_dim.begin(), decl.auto_dim.end(), decl.indices[i]) !=
                     decl.auto_dim.end();
      (is_auto ? info.auto_axes : info.table_axes).push_back(i);
      std::optional<int64_t> bound;
      for (const FixedBound& fb : decl.fixed) {
        if (fb.index != decl.indices[i]) continue;
        if (!fb.bound.is_name()) {
          bound = fb.bound.value;
        } else if (auto v = sizevar(fb.bound.name)) {
          bound = *v;
        } else {
          throw input_error(where(decl.loc) + "@fixed bound '" + fb.bound.name + "' of '" +
                            decl.name + "' is not a size variable of the model");
        }
      }
      info.bound.push_back(bound);
    }
    info.table = info.kind == VarKind::Persistent && !info.table_axes.empty();
    var_ids.emplace(info.name, info.id);
    vars.push_back(std::move(info));
  }
  for_each_node(entry->nodes, [&](const Node& node, size_t) {
    if (node.kind != NodeKind::Assign || var_ids.count(node.var)) return;
    VarInfo info;
    info.id = vars.size();
    info.name = node.var;
    info.kind = VarKind::Temporary;
    info.dtype = node.dtype;
    info.shape = resolve_dims(node.dims, node.loc);
    var_ids.emplace(info.name, info.id);
    vars.push_back(std::move(info));
  });
}

void Program::plan_ops(const OpCatalog& catalog) {
  std::string errors;
  size_t error_count = 0;
  for (const Block& block : graph.blocks) {
    for_each_node(block.nodes, [&](const Node& node, size_t) {
      if (node.kind != NodeKind::Op) return;
      try {
        plan_op(node, block, catalog);
      } catch (const Error& e) {
        errors += "    " + std::string(e.what()) + "\n";
        ++error_count;
      }
    });
  }
  if (error_count > 0) {
    throw input_error("graph '" + graph.origin + "' cannot run on backend '" +
                      primary->backend->name() + "' (" + std::to_string(error_count) + " errors)")
        .with_context(errors);
  }
}

void Program::plan_op(const Node& node, const Block& block, const OpCatalog& catalog) {
  auto facts = op_facts(catalog, node.op);
  if (!facts) throw input_error(where(node.loc) + "unknown op '" + node.op + "'");
  OpPlan plan;
  std::vector<DType> inputs;
  for (const Ref& in : node.inputs) {
    plan.input_vars.push_back(&var(in.name, in.loc));
    inputs.push_back(plan.input_vars.back()->dtype);
  }
  plan.output_var = &var(node.output.name, node.output.loc);
  DType output = plan.output_var->dtype;
  bool acc = false;
  for (const Setting& s : node.settings) acc = acc || s.name == "acc";
  for (const Ref& in : node.inputs) {
    bool same = !node.output.has_brackets && in.indices.empty() && in.name == node.output.name;
    plan.output_aliases_input = plan.output_aliases_input || same;
  }
  // Preference order: in-place when the op allows it, else into a temporary.
  std::vector<KernelMode> modes;
  if (acc) {
    modes = {KernelMode::Accumulate};
  } else if (plan.output_aliases_input && facts->inplace) {
    modes = {KernelMode::InPlace, KernelMode::Normal};
  } else {
    modes = {KernelMode::Normal};
  }
  // A scope's placement goes first; where that backend lacks the op, the host fallback runs
  // it (dsl.md "Scopes"), then the primary.
  const ScopeInfo* scope =
      node.scope >= 0 ? &scopes.at(&block).at(static_cast<size_t>(node.scope)) : nullptr;
  BackendSlot* placed_on = nullptr;
  if (scope != nullptr && !scope->hints.placement.empty()) {
    placed_on = slot_named(scope->hints.placement);
    if (placed_on == nullptr) {
      warnings.push_back(where(node.loc) + "warning: no backend '" + scope->hints.placement +
                         "' is loaded for the placement of scope " + scope->path +
                         "; this node runs on '" + primary->backend->name() + "'");
    }
  }
  std::vector<BackendSlot*> order;
  for (BackendSlot* slot :
       {placed_on, placed_on ? fallback.get() : nullptr, primary.get(), fallback.get()}) {
    if (slot != nullptr && std::find(order.begin(), order.end(), slot) == order.end())
      order.push_back(slot);
  }
  for (BackendSlot* slot : order) {
    if (plan.kernel != nullptr) continue;
    for (KernelMode mode : modes) {
      if (const Kernel* k = slot->backend->find_kernel(node.op, inputs, output, mode)) {
        plan.kernel = k;
        plan.backend = slot;
        plan.mode = mode;
        break;
      }
    }
  }
  std::string signature = "op '" + node.op + "' " + dtype_list(inputs) + " -> " +
                          std::string(dtype_name(output)) + " in " +
                          std::string(kernel_mode_name(modes.front())) + " mode";
  if (plan.kernel == nullptr) {
    throw input_error(where(node.loc) + "no loaded backend provides " + signature + " (tried '" +
                      primary->backend->name() +
                      (fallback ? "' and '" + fallback->backend->name() : std::string()) + "')");
  }
  // The backend the node is meant for: its scope's placement, else the primary.
  BackendSlot* intended = placed_on ? placed_on : primary.get();
  // A tiny result goes to the host only where no scope placed the node.
  if (placed_on == nullptr && plan.backend == primary.get() && fallback &&
      !primary->backend->can_wrap_host_memory() && fallback->backend->can_wrap_host_memory() &&
      !node.output.has_brackets && !plan.output_var->table && !plan.output_var->auto_dim &&
      !plan.output_var->prefix) {
    bool plain_inputs = true;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const VarInfo& v = *plan.input_vars[i];
      plain_inputs =
          plain_inputs && node.inputs[i].indices.empty() && !v.table && !v.auto_dim && !v.prefix;
    }
    uint64_t numel = 1;
    for (uint64_t d : plan.output_var->shape) numel *= d;
    const auto bytes = storage_bytes(output, numel);
    const uint64_t limit = node.op == "gather" ? kHostGatherBytes : kHostOpBytes;
    if (plain_inputs && bytes && *bytes <= limit)
      plan.host_kernel = fallback->backend->find_kernel(node.op, inputs, output, plan.mode);
  }
  // Where a declined call goes: the host fallback, else (a placed node) the primary; the
  // same mode if that backend has it, else the next one.
  BackendSlot* other = fallback && fallback.get() != plan.backend ? fallback.get()
                       : primary.get() != plan.backend            ? primary.get()
                                                                  : nullptr;
  if (plan.backend == intended && other != nullptr) {
    for (auto it = std::find(modes.begin(), modes.end(), plan.mode);
         it != modes.end() && plan.decline_kernel == nullptr; ++it) {
      plan.decline_kernel = other->backend->find_kernel(node.op, inputs, output, *it);
      plan.decline_mode = *it;
    }
    if (plan.decline_kernel != nullptr) plan.decline_backend = other;
  }
  if (plan.backend != intended) {
    const std::string why = placed_on ? " (the placement of scope " + scope->path + ")" : "";
    warnings.push_back(where(node.loc) + "warning: backend '" + intended->backend->name() + "'" +
                       why + " lacks " + signature + "; this node runs on '" +
                       plan.backend->backend->name() + "'");
  }
  for (const SettingFact& fact : facts->settings) {
    const Setting* given = nullptr;
    for (const Setting& s : node.settings) {
      bool alias =
          std::find(fact.aliases.begin(), fact.aliases.end(), s.name) != fact.aliases.end();
      if (s.name == fact.name || alias) given = &s;
    }
    PlannedSetting planned{fact.name, fact.kind, KernelValue(int64_t{0}), std::nullopt};
    if (given == nullptr) {
      if (!fact.default_value) continue;
      planned.value = *fact.default_value;
    } else if (auto literal = literal_setting(given->value, fact.kind)) {
      planned.value = *literal;
    } else if (given->value.kind == Value::Kind::Ident) {
      planned.ident = given->value;
      plan.dynamic_settings = true;
    } else {
      throw input_error(where(given->loc) + "setting '" + given->name + "' of op '" + node.op +
                        "' has the wrong type");
    }
    plan.settings.push_back(std::move(planned));
  }
  if (!plan.dynamic_settings) {
    for (const PlannedSetting& s : plan.settings) plan.static_settings.push_back({s.name, s.value});
  }
  const auto shaped_at_run_time = [](const VarInfo& v) {
    return v.table || v.auto_dim || v.prefix;
  };
  // A setting naming a variable (a loop index, say) may change the result's shape from one
  // run to the next (`argmax_axis(x, axis=i)`): its rule is checked at run time too.
  bool runtime =
      node.output.has_brackets || shaped_at_run_time(*plan.output_var) || plan.dynamic_settings;
  for (size_t i = 0; i < node.inputs.size(); ++i)
    runtime = runtime || !node.inputs[i].indices.empty() || shaped_at_run_time(*plan.input_vars[i]);
  if (runtime) {
    const OpSchema* schema = catalog.find(node.op);
    const ShapeRuleFn* rule =
        schema ? ShapeRuleRegistry::global().find(schema->shape_rule) : nullptr;
    if (rule != nullptr)
      plan.runtime_shape = ResultShapeRule{std::make_shared<OpSchema>(*schema), rule};
  }
  ops.emplace(&node, std::move(plan));
}

void Program::find_consumers(const OpCatalog& catalog) {
  uint32_t track = 0;
  for (const Block& block : graph.blocks) {
    if (&block != entry && !block.nodes.empty() && block.nodes.front().kind == NodeKind::Await)
      consumer_track.emplace(&block, ++track);
  }
  for_each_node(entry->nodes, [&](const Node& node, size_t) {
    if (node.kind != NodeKind::Yield) return;
    std::set<std::string> yielded(node.names.begin(), node.names.end());
    auto& list = consumers[&node];
    for (const Block& block : graph.blocks) {
      if (!consumer_track.count(&block)) continue;
      const auto& awaited = block.nodes.front().names;
      bool subset = std::all_of(awaited.begin(), awaited.end(),
                                [&](const std::string& n) { return yielded.count(n) > 0; });
      if (subset && !awaited.empty()) list.push_back(&block);
    }
  });
  order_consumers(catalog);
}

void Program::order_consumers(const OpCatalog& catalog) {
  Diagnostics diag;
  const validation::GraphIndex index(graph, catalog, diag);
  for (auto& [yield, list] : consumers) {
    std::set<std::string> in_place;
    for (const std::string& name : yield->names)
      if (const VarInfo* v = find(name); v && (v->table || v->auto_dim)) in_place.insert(name);
    if (in_place.empty()) continue;
    std::vector<emit::YieldConsumer> blocks;
    for (const Block* b : list) {
      emit::YieldConsumer c{b->name, {}, {}};
      c.awaits.insert(b->nodes.front().names.begin(), b->nodes.front().names.end());
      std::vector<validation::VarAccess> accesses;
      for (const Node& n : b->nodes) validation::collect_accesses(index, n, accesses);
      for (const auto& a : accesses)
        if (a.write) c.writes.insert(a.name);
      blocks.push_back(std::move(c));
    }
    // Only a writer with another consumer awaiting the same value needs an order.
    bool constrained = false;
    for (const std::string& v : in_place)
      for (size_t w = 0; w < blocks.size(); ++w)
        for (size_t r = 0; r < blocks.size(); ++r)
          constrained =
              constrained || (r != w && blocks[w].writes.count(v) && blocks[r].awaits.count(v));
    if (!constrained) continue;
    const emit::ConsumerOrder order = emit::order_consumers(blocks, in_place);
    if (!order.error.empty()) {  // a cycle: no order serves, so readers get copies
      for (size_t r = 0; r < blocks.size(); ++r)
        for (const std::string& v : in_place) {
          bool written_by_another = false;
          for (size_t w = 0; w < blocks.size(); ++w)
            written_by_another = written_by_another || (w != r && blocks[w].writes.count(v));
          if (written_by_another && blocks[r].awaits.count(v))
            snapshot_tables[yield][list[r]].push_back(find(v));
        }
      continue;
    }
    std::vector<const Block*> ordered;
    for (size_t i : order.order) ordered.push_back(list[i]);
    list = std::move(ordered);
    sequential_yields.insert(yield);
  }
}

}  // namespace oi::exec
