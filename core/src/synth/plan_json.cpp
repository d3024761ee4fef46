// The plan's versioned JSON form (docs/synth.md) and its human report.
#include <boost/json.hpp>
#include <cmath>
#include <sstream>

#include "../graph/json_pretty.hpp"
#include "plan_internal.hpp"

namespace oi {

namespace json = boost::json;

std::string_view storage_name(Storage s) {
  switch (s) {
    case Storage::Dynamic:
      return "dynamic";
    case Storage::Constant:
      return "constant";
    case Storage::Persistent:
      return "persistent";
    case Storage::Step:
      return "step";
    case Storage::Arena:
      return "arena";
    case Storage::Internal:
      return "internal";
    case Storage::Runtime:
      return "runtime";
  }
  return "?";
}

std::string_view step_kind_name(Step::Kind k) {
  switch (k) {
    case Step::Kind::Kernel:
      return "kernel";
    case Step::Kind::Transfer:
      return "transfer";
    case Step::Kind::CacheRead:
      return "cache.read";
    case Step::Kind::CacheWrite:
      return "cache.write";
    case Step::Kind::CacheIncrement:
      return "cache.increment";
    case Step::Kind::CacheDecrement:
      return "cache.decrement";
    case Step::Kind::CacheReset:
      return "cache.reset";
    case Step::Kind::Loop:
      return "loop";
    case Step::Kind::Branch:
      return "branch";
    case Step::Kind::Return:
      return "return";
    case Step::Kind::Barrier:
      return "barrier";
    case Step::Kind::Dep:
      return "dep";
    case Step::Kind::Yield:
      return "yield";
    case Step::Kind::Await:
      return "await";
  }
  return "?";
}

const PlanValue* Plan::find_value(std::string_view name) const {
  for (const PlanValue& v : values)
    if (v.name == name) return &v;
  return nullptr;
}

const BlockPlan* Plan::find_block(std::string_view name) const {
  for (const BlockPlan& b : blocks)
    if (b.name == name) return &b;
  return nullptr;
}

namespace {

json::array strings(const std::vector<std::string>& v) {
  return json::array(v.begin(), v.end());
}

json::array dims(const Dims& d) {
  return json::array(d.begin(), d.end());
}

json::value setting_json(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Int:
      if (v.above_int64) return static_cast<uint64_t>(v.int_value);
      return v.int_value;
    case Value::Kind::Float:
      if (std::isinf(v.float_value)) return v.float_value > 0 ? "inf" : "-inf";
      return v.float_value;
    case Value::Kind::Bool:
      return v.bool_value;
    case Value::Kind::String:
      return json::value(v.text);
    case Value::Kind::DType:
      return json::value(std::string(dtype_name(v.dtype)));
    case Value::Kind::Ident:
      return json::object{{"name", v.text}};
    case Value::Kind::IntList:
      return json::array(v.ints.begin(), v.ints.end());
  }
  return nullptr;
}

// A table access in structured form (besides its text): {"name": "K", "slots": [{"kind":
// "index", "index": {"name": "l", "offset": 0}}, {"kind": "range", "start": {"value": 0},
// "end": {"name": "T", "offset": 0}}]}; a literal index is {"value": N}; "all" is an empty slot.
json::object index_json(const Index& i) {
  if (i.is_literal()) return {{"value", i.offset}};
  return {{"name", i.name}, {"offset", i.offset}};
}

json::object access_json(const Access& a) {
  json::array slots;
  for (const Slot& slot : a.slots) {
    json::object o;
    if (slot.kind == Slot::Kind::Index) {
      o["kind"] = "index";
      o["index"] = index_json(slot.index);
    } else if (slot.kind == Slot::Kind::Range) {
      o["kind"] = "range";
      if (slot.start) o["start"] = index_json(*slot.start);
      if (slot.end) o["end"] = index_json(*slot.end);
    } else {
      o["kind"] = "all";
    }
    slots.push_back(std::move(o));
  }
  return {{"name", a.name}, {"slots", std::move(slots)}};
}

json::object ref_access_json(const Ref& r) {
  Access a;
  a.name = r.name;
  a.has_brackets = !r.indices.empty();
  for (const Index& i : r.indices) {
    Slot slot;
    slot.kind = Slot::Kind::Index;
    slot.index = i;
    a.slots.push_back(slot);
  }
  return access_json(a);
}

json::object op_json(const Node& n) {
  json::object o;
  o["node"] = n.uuid;
  o["line"] = n.loc.line;
  o["op"] = n.op;
  json::array ins;
  for (const Ref& r : n.inputs) ins.emplace_back(synth::ref_text(r));
  o["inputs"] = std::move(ins);
  json::object settings;
  for (const Setting& s : n.settings) settings[s.name] = setting_json(s.value);
  o["settings"] = std::move(settings);
  o["output"] = synth::access_text(n.output);
  // Source positions for run-time messages (a table index past its @fixed bound), as the
  // simulator writes them: the node's, each input's and the output's.
  o["at"] = n.loc.to_string();
  json::array ins_at;
  for (const Ref& r : n.inputs) ins_at.emplace_back(r.loc.to_string());
  o["inputs_at"] = std::move(ins_at);
  o["output_at"] = n.output.loc.to_string();
  // Table entries and slices among the operands, structured: one per input (its slots empty
  // for a whole variable) when any input has indices, and the output's when it has brackets.
  bool indexed = false;
  for (const Ref& r : n.inputs) indexed = indexed || !r.indices.empty();
  if (indexed) {
    json::array accesses;
    for (const Ref& r : n.inputs) accesses.push_back(ref_access_json(r));
    o["inputs_access"] = std::move(accesses);
  }
  if (n.output.has_brackets) o["output_access"] = access_json(n.output);
  return o;
}

json::object step_json(const Step& s) {
  json::object o;
  o["id"] = s.id;
  o["kind"] = std::string(step_kind_name(s.kind));
  if (s.kind == Step::Kind::Kernel) {
    o["kernel"] = s.kernel;
    return o;
  }
  const Node& n = *s.node;
  o["node"] = n.uuid;
  if (!s.scope.empty()) o["scope"] = s.scope;
  o["line"] = n.loc.line;
  o["at"] = n.loc.to_string();
  switch (s.kind) {
    case Step::Kind::Transfer:
      o["from"] = synth::ref_text(n.inputs.at(0));
      o["to"] = synth::access_text(n.output);
      o["from_at"] = n.inputs.at(0).loc.to_string();
      o["to_at"] = n.output.loc.to_string();  // where the simulator's store reports
      break;
    case Step::Kind::CacheRead:
      o["from"] = synth::access_text(n.target);
      o["to"] = synth::access_text(n.output);
      o["from_at"] = n.target.loc.to_string();
      o["to_at"] = n.output.loc.to_string();
      if (n.target.has_brackets) o["from_access"] = access_json(n.target);
      break;
    case Step::Kind::CacheWrite:
      o["from"] = synth::ref_text(n.inputs.at(0));
      o["to"] = synth::access_text(n.target);
      o["to_at"] = n.target.loc.to_string();
      o["from_at"] = n.inputs.at(0).loc.to_string();
      if (n.target.has_brackets) o["to_access"] = access_json(n.target);
      break;
    case Step::Kind::CacheIncrement:
    case Step::Kind::CacheDecrement:
      o["var"] = n.var;
      o["amount"] = n.amount;
      break;
    case Step::Kind::CacheReset:
      o["target"] = synth::access_text(n.target);
      o["target_at"] = n.target.loc.to_string();
      if (n.target.has_brackets) o["target_access"] = access_json(n.target);
      break;
    case Step::Kind::Loop: {
      o["name"] = n.loop_name;
      o["index"] = n.var;
      o["start"] = synth::bound_text(n.start);
      o["end"] = synth::bound_text(n.end);
      json::array body;
      for (const Step& b : s.body) body.push_back(step_json(b));
      o["body"] = std::move(body);
      break;
    }
    case Step::Kind::Branch:
      o["cond"] = n.cond;
      o["then"] = n.then_block;
      o["else"] = n.else_block;
      break;
    case Step::Kind::Dep:
      o["after"] = n.dep_after;
      o["before"] = n.dep_before;
      break;
    case Step::Kind::Yield:
      o["names"] = strings(n.names);
      o["tasks"] = strings(s.tasks);
      break;
    case Step::Kind::Return:
    case Step::Kind::Await:
      o["names"] = strings(n.names);
      break;
    default:
      break;
  }
  return o;
}

json::object value_json(const PlanValue& v) {
  json::object o;
  o["name"] = v.name;
  o["memory"] = v.memory;
  o["dtype"] = std::string(dtype_name(v.dtype));
  o["shape"] = dims(v.shape);
  o["storage"] = std::string(storage_name(v.storage));
  o["bytes"] = v.bytes;
  if (!v.indices.empty()) {
    o["indices"] = strings(v.indices);
    o["entries"] = v.storage == Storage::Runtime ? json::value(nullptr) : json::value(v.entries);
    if (!v.extents.empty()) {
      json::array e;
      for (uint64_t x : v.extents) e.push_back(x);
      o["extents"] = std::move(e);
    }
  }
  if (!v.bound.empty()) {
    json::array b;
    for (const auto& x : v.bound) b.push_back(x ? json::value(*x) : json::value(nullptr));
    o["bound"] = std::move(b);
  }
  if (!v.auto_dim.empty()) o["auto_dim"] = strings(v.auto_dim);
  if (!v.link.empty()) o["link"] = v.link;
  if (v.decl && v.decl->pattern) o["pattern"] = *v.decl->pattern;  // a prefix table's entries
  if (v.metadata_init)
    o["init"] = setting_json(*v.metadata_init);
  else if (v.decl && v.decl->init)
    o["init"] = setting_json(*v.decl->init);
  if (v.storage == Storage::Arena) {
    o["offset"] = v.offset;
    o["live"] = json::array{v.live_first, v.live_last};
    json::array ranges;
    for (const auto& [a, b] : v.live_ranges) ranges.push_back(json::array{a, b});
    o["live_ranges"] = std::move(ranges);
    o["zero_fill"] = v.zero_fill;
    if (v.shares) o["shares"] = *v.shares;
  }
  return o;
}

}  // namespace

std::string Plan::to_json() const {
  json::object root;
  root["format"] = "openinfer-synth-plan";
  root["version"] = kSynthPlanVersion;
  root["graph"] = graph ? graph->origin : "";
  root["model"] = model.origin();
  json::object dev;
  dev["name"] = device.device.name;
  dev["type"] = device.device.type;
  dev["origin"] = device.origin;
  dev["prefer_fusion"] = device.preferences.prefer_fusion;
  dev["max_kernel_ops"] = device.preferences.max_kernel_ops;
  // A CPU's caches and instruction set, for emitters that size blocking and pick SIMD code
  // (docs/devices.md's keys); `builtin`: the target's default description (--device not given).
  if (device.has_cpu) {
    dev["builtin"] = device.origin.rfind("<target ", 0) == 0;
    // "freestanding": a microcontroller's C (no allocation, stdio or files; docs/synth.md).
    dev["profile"] = device.cpu.profile;
    if (!device.device.architecture.empty()) dev["architecture"] = device.device.architecture;
    json::object memory;
    memory["l1d_bytes"] = device.memory.l1d_bytes;  // 0: no data cache (freestanding only)
    memory["l2_bytes"] = device.memory.l2_bytes;
    if (device.memory.l3_bytes) memory["l3_bytes"] = device.memory.l3_bytes;  // 0: none given
    if (device.memory.flash_bytes) memory["flash_bytes"] = device.memory.flash_bytes;
    if (device.memory.ram_bytes) memory["ram_bytes"] = device.memory.ram_bytes;
    dev["memory"] = std::move(memory);
    json::object cpu;
    cpu["isa"] = device.cpu.isa;
    cpu["simd"] = json::array(device.cpu.simd.begin(), device.cpu.simd.end());
    cpu["vector_bits"] = device.cpu.vector_bits;
    if (!device.cpu.fpu.empty()) cpu["fpu"] = device.cpu.fpu;
    cpu["alignment_bytes"] = device.cpu.alignment_bytes;
    dev["cpu"] = std::move(cpu);
  }
  root["device"] = std::move(dev);
  json::object sizes;  // loop bounds and dims may name them
  for (const SizeVarEntry& sv : model.sizevars()) sizes[sv.name] = sv.value;
  root["sizevars"] = std::move(sizes);
  json::array vals;
  for (const PlanValue& v : values) vals.push_back(value_json(v));
  root["values"] = std::move(vals);
  json::array ks;
  for (const PlanKernel& k : kernels) {
    json::object o;
    o["id"] = k.id;
    o["kind"] = k.kind;
    o["shape"] = dims(k.shape);
    json::array ops;
    for (size_t i = 0; i < k.ops.size(); ++i) {
      json::object op = op_json(*k.ops[i]);
      if (i < k.rules.size()) {  // the catalog's output-shape rule (run-time shapes)
        op["shape_rule"] = k.rules[i].shape_rule;
        op["broadcast"] = k.rules[i].broadcast;
      }
      ops.push_back(std::move(op));
    }
    o["ops"] = std::move(ops);
    o["reads"] = strings(k.reads);
    o["writes"] = strings(k.writes);
    o["internal"] = strings(k.internal);
    o["inplace_ok"] = k.inplace_ok;
    if (!k.scope.empty()) o["scope"] = k.scope;
    if (!k.placement.empty()) o["placement"] = k.placement;
    if (k.reordered) o["reordered"] = true;
    ks.push_back(std::move(o));
  }
  root["kernels"] = std::move(ks);
  json::array bs;
  for (const BlockPlan& b : blocks) {
    json::object o;
    o["name"] = b.name;
    o["role"] = b.role;
    json::array steps;
    for (const Step& s : b.steps) steps.push_back(step_json(s));
    o["steps"] = std::move(steps);
    bs.push_back(std::move(o));
  }
  root["blocks"] = std::move(bs);
  json::array cs;
  for (const Constraint& c : constraints)
    cs.push_back(json::object{{"after", c.after}, {"before", c.before}, {"reason", c.reason}});
  root["constraints"] = std::move(cs);
  json::object m;
  m["alignment"] = memory.alignment;
  m["arena_bytes"] = memory.arena_bytes;
  m["temporary_bytes"] = memory.temporary_bytes;
  m["dynamic_bytes"] = memory.dynamic_bytes;
  m["constant_bytes"] = memory.constant_bytes;
  m["persistent_bytes"] = memory.persistent_bytes;
  m["step_bytes"] = memory.step_bytes;
  m["peak_bytes"] = memory.peak_bytes;
  m["unplanned_bytes"] = memory.unplanned_bytes;
  m["runtime_sized"] = strings(memory.runtime_sized);
  root["memory"] = std::move(m);
  std::string out;
  detail::append_pretty_json(out, root);
  out += '\n';
  return out;
}

std::string Plan::report() const {
  std::ostringstream o;
  size_t fused = 0, fused_ops = 0;
  for (const PlanKernel& k : kernels)
    if (k.ops.size() > 1) {
      ++fused;
      fused_ops += k.ops.size();
    }
  o << "plan for " << (graph ? graph->origin : "?") << " on " << device.device.name << " ("
    << device.device.type << ", max_kernel_ops " << device.preferences.max_kernel_ops
    << (device.preferences.prefer_fusion ? "" : ", fusion off") << ")\n";
  o << "kernels: " << kernels.size() << " (" << fused << " fused groups holding " << fused_ops
    << " ops)\n";
  for (const PlanKernel& k : kernels) {
    o << "  k" << k.id << " " << k.kind << " " << format_dims(k.shape) << ":";
    for (const Node* n : k.ops) o << " " << n->op;
    if (!k.internal.empty()) {
      o << "  internal:";
      for (const auto& i : k.internal) o << " " << i;
    }
    if (k.reordered) o << "  (reordered)";
    if (!k.scope.empty()) o << "  scope " << k.scope;
    if (!k.placement.empty()) o << " placement " << k.placement;
    o << "\n";
  }
  o << "buffers:\n";
  for (const PlanValue& v : values) {
    o << "  " << v.name << " " << dtype_name(v.dtype) << format_dims(v.shape) << " "
      << storage_name(v.storage) << " " << v.bytes << " B";
    if (v.storage == Storage::Arena)
      o << " @" << v.offset << " live " << v.live_first << ".." << v.live_last
        << (v.shares ? " in place of " + *v.shares : "");
    if (v.storage == Storage::Runtime) o << " per entry";
    o << "\n";
  }
  o << "memory: peak " << memory.peak_bytes << " B (unplanned " << memory.unplanned_bytes
    << " B); arena " << memory.arena_bytes << " B for " << memory.temporary_bytes
    << " B of temporaries; dynamic " << memory.dynamic_bytes << " B, constant "
    << memory.constant_bytes << " B, persistent " << memory.persistent_bytes << " B, volatile "
    << memory.step_bytes << " B";
  if (!memory.runtime_sized.empty()) {
    o << "; run-time sized:";
    for (const auto& n : memory.runtime_sized) o << " " << n;
  }
  o << "\n";
  return o.str();
}

}  // namespace oi
