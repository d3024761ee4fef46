// Reading the plan and the device description, with errors that name the key.
#include "plan_input.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>
#include <set>

#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_abi.hpp"

namespace oi::glsl {

namespace json = boost::json;

std::string op_where(const OpIn& op) {
  return "op '" + op.op + "' (line " + std::to_string(op.line) + ")";
}

void drop_unnamed(KernelIn& k) {
  std::set<std::string> named;
  for (const OpIn& op : k.ops) {
    named.insert(parse_ref(op.output).name);
    for (const std::string& in : op.inputs) named.insert(parse_ref(in).name);
  }
  auto unnamed = [&](const std::string& n) { return !named.count(parse_ref(n).name); };
  std::erase_if(k.reads, unnamed);
  std::erase_if(k.writes, unnamed);
}

ValueRef parse_ref(const std::string& text) {
  ValueRef r;
  const size_t open = text.find('[');
  r.name = text.substr(0, open);
  while (!r.name.empty() && r.name.back() == ' ') r.name.pop_back();
  if (open == std::string::npos) return r;
  if (text.back() != ']') invalid_plan("'" + text + "': cannot read this value reference");
  const std::string inner = text.substr(open + 1, text.size() - open - 2);
  if (inner.find_first_not_of(' ') == std::string::npos) {
    r.all = true;
    return r;
  }
  size_t start = 0;
  while (start <= inner.size()) {
    size_t comma = inner.find(',', start);
    if (comma == std::string::npos) comma = inner.size();
    std::string term = inner.substr(start, comma - start);
    term.erase(std::remove(term.begin(), term.end(), ' '), term.end());
    if (term.empty()) term = "..";  // an empty slot: the whole axis
    for (char c : term)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' ||
            c == '-'))
        invalid_plan("'" + text + "': index '" + term +
                     "' is not an integer, a name, a name plus or minus an integer, or a range");
    r.index.push_back(term);
    start = comma + 1;
  }
  return r;
}

const ValueIn& PlanIn::value(const std::string& name) const {
  const ValueRef ref = parse_ref(name);
  auto it = value_index.find(ref.name);
  if (it == value_index.end())
    invalid_plan("the plan names value '" + ref.name + "' but does not list it");
  const ValueIn& v = values[it->second];
  if (ref.all)
    invalid_plan("'" + name +
                 "': a whole table as an op's operand (slices are allowed in cache "
                 "accesses and op outputs, window_outputs.cpp)");
  if (ref.index.empty() && !v.is_table()) return v;
  if (!v.is_table())
    invalid_plan("'" + name + "': '" + v.name + "' is not a table and takes no indices");
  if (ref.index.empty()) return v;  // the table itself (bindings, reads and writes)
  if (ref.index.size() != v.indices.size())
    invalid_plan("'" + name + "': table '" + v.name + "' has " + std::to_string(v.indices.size()) +
                 " indices");
  for (const std::string& term : ref.index)
    if (term.find("..") != std::string::npos)
      invalid_plan("'" + name +
                   "': a window of table entries as an op's operand (slices are "
                   "allowed in cache accesses and op outputs, window_outputs.cpp)");
  return v;
}

namespace {

json::value parse(const std::string& text, const char* what) {
  boost::system::error_code ec;
  // Loops nest up to 64 deep (the parser's limit), each two levels of the plan's JSON, past
  // boost::json's default depth of 32 (c_generator.cpp does the same).
  json::parse_options depth;
  depth.max_depth = 4096;
  json::value v = json::parse(text, ec, {}, depth);
  if (ec) invalid_plan(std::string("the ") + what + " is not valid JSON: " + ec.message());
  return v;
}

const json::value& key(const json::object& o, const char* name, const std::string& where) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr) invalid_plan(where + " has no key '" + name + "'");
  return *v;
}

uint64_t to_u64(const json::value& v, const std::string& where) {
  if (v.is_uint64()) return v.as_uint64();
  if (v.is_int64() && v.as_int64() >= 0) return static_cast<uint64_t>(v.as_int64());
  invalid_plan(where + ": expected a non-negative integer");
}

std::vector<std::string> strings(const json::value& v, const std::string& where) {
  if (!v.is_array()) invalid_plan(where + ": expected an array of strings");
  std::vector<std::string> out;
  for (const json::value& s : v.as_array()) {
    if (!s.is_string()) invalid_plan(where + ": expected an array of strings");
    out.emplace_back(s.as_string());
  }
  return out;
}

std::vector<uint64_t> dims(const json::value& v, const std::string& where) {
  if (!v.is_array()) invalid_plan(where + ": expected an array of dims");
  std::vector<uint64_t> out;
  for (const json::value& d : v.as_array()) out.push_back(to_u64(d, where));
  return out;
}

std::string text(const json::value& v, const std::string& where) {
  if (!v.is_string()) invalid_plan(where + ": expected a string");
  return std::string(v.as_string());
}

ValueIn read_value(const json::object& o) {
  ValueIn v;
  v.name = text(key(o, "name", "a plan value"), "value name");
  const std::string where = "plan value '" + v.name + "'";
  v.storage = text(key(o, "storage", where), where + " storage");
  v.dtype = text(key(o, "dtype", where), where + " dtype");
  v.shape = dims(key(o, "shape", where), where + " shape");
  v.bytes = to_u64(key(o, "bytes", where), where + " bytes");
  for (uint64_t d : v.shape) v.elements *= d;
  if (const json::value* l = o.if_contains("link")) v.link = text(*l, where + " link");
  if (const json::value* i = o.if_contains("init"); i && !i->is_null()) {
    const bool number = i->is_number() || i->is_bool() ||
                        (i->is_string() && (i->as_string() == "inf" || i->as_string() == "-inf"));
    if (!number) invalid_plan(where + ": @init " + json::serialize(*i) + " is not a number");
    static const char* kInitDtypes[] = {"f32",    "f64", "f16", "bf16", "f8",  "i8",  "u8",
                                        "i16",    "u16", "i32", "u32",  "i64", "u64", "bool",
                                        "bitset", "i4",  "u4",  "i2",   "u2",  "i1",  "u1"};
    if (std::find(std::begin(kInitDtypes), std::end(kInitDtypes), v.dtype) == std::end(kInitDtypes))
      invalid_plan(where + ": @init of dtype " + v.dtype + " is not supported");
    v.init = *i;
  }
  if (v.storage == "arena") {
    v.offset = to_u64(key(o, "offset", where), where + " offset");
    if (const json::value* z = o.if_contains("zero_fill"))
      v.zero_fill = z->is_bool() && z->as_bool();
  }
  if (o.contains("auto_dim") && !o.at("auto_dim").is_null()) {
    v.auto_indices = strings(o.at("auto_dim"), where + " auto_dim");
    const json::value* ix = o.if_contains("indices");
    const std::vector<std::string> all = ix ? strings(*ix, where + " indices") : v.auto_indices;
    // dsl.md: @table indices first, then the auto ones
    const size_t nt = all.size() - std::min(all.size(), v.auto_indices.size());
    if (!std::equal(v.auto_indices.begin(), v.auto_indices.end(), all.begin() + nt))
      invalid_plan(where + ": auto indices that are not the last ones");
    if (v.auto_indices.size() > v.shape.size())
      invalid_plan(where + ": more auto indices than axes");
    v.auto_table.assign(all.begin(), all.begin() + nt);
    std::vector<uint64_t> bound;
    if (const json::value* b = o.if_contains("bound"); b && b->is_array())
      for (const json::value& e : b->as_array())
        bound.push_back(e.is_null() ? 0 : to_u64(e, where + " bound"));
    bound.resize(all.size(), 0);
    v.auto_table_bound.assign(bound.begin(), bound.begin() + nt);
    v.auto_bound.assign(bound.begin() + nt, bound.end());
    v.storage = "auto_dim";
    return v;
  }
  if (const json::value* ix = o.if_contains("indices"); ix && !ix->is_null()) {
    v.indices = strings(*ix, where + " indices");
    if (v.indices.empty()) invalid_plan(where + ": a table without indices");
    const json::value* entries = o.if_contains("entries");
    const bool sized = entries && !entries->is_null();
    uint64_t n = 1;
    if (const json::value* b = o.if_contains("bound"); b && b->is_array()) {
      for (const json::value& e : b->as_array())
        v.bound.push_back(e.is_null() ? 0 : to_u64(e, where + " bound"));
    } else if (const json::value* x = o.if_contains("extents"); x && x->is_array()) {
      // a prefix table of several indices: the model's entries span these extents
      for (const json::value& e : x->as_array()) v.bound.push_back(to_u64(e, where + " extents"));
    } else if (sized && v.indices.size() == 1) {
      v.bound.push_back(to_u64(*entries, where + " entries"));
    }
    if (v.bound.size() != v.indices.size())
      invalid_plan(where + ": a table whose bounds the plan does not give");
    int growing = 0;
    for (uint64_t b : v.bound) growing += b == 0, n *= b == 0 ? 1 : b;
    if (sized) {
      if (growing) invalid_plan(where + ": a growing table with a fixed entry count");
      if (to_u64(*entries, where + " entries") != n)
        invalid_plan(where + ": entries do not match the bounds");
      v.entry_bytes = n ? v.bytes / n : 0;
    } else {
      if (!growing) invalid_plan(where + ": a fixed table without entries");
      v.entry_bytes = v.bytes;  // run-time sized: the plan gives one entry
    }
    if (const json::value* p = o.if_contains("pattern"); p && p->is_string())
      v.pattern = std::string(p->as_string());
    if (v.storage == "runtime") v.storage = "persistent";
    // A volatile prefix table holds the model's entries at every step and no node writes it
    // (dsl.md): a constant one.
    if (v.storage == "step" && sized) v.storage = "constant";
    // (the validator allows @table only in persistent memory, and other tables only as the
    // model's entries: prefix tables, sized from the model)
    if (v.storage != "constant" && v.storage != "persistent")
      invalid_plan(where + ": a table of " + v.storage + " memory");
  } else if (v.storage == "runtime") {
    // (the planner sizes a value at run time only for a growing table or an @auto_dim matrix,
    // which carry indices: core/src/synth/resolve_values.cpp)
    invalid_plan(where +
                 ": a value sized at run time that is neither a table nor an @auto_dim "
                 "matrix");
  }
  return v;
}

OpIn read_op(const json::object& o, const std::string& where) {
  OpIn op;
  op.op = text(key(o, "op", where), where + " op");
  if (const json::value* l = o.if_contains("line"); l && l->is_int64()) op.line = l->as_int64();
  op.inputs = strings(key(o, "inputs", where), where + " inputs");
  const json::value& s = key(o, "settings", where);
  if (!s.is_object()) invalid_plan(where + ": settings must be an object");
  op.settings = s.as_object();
  for (const auto& kv : op.settings)
    op.named_settings = op.named_settings || kv.value().is_object();
  op.output = text(key(o, "output", where), where + " output");
  if (const json::value* a = o.if_contains("output_at"); a && a->is_string())
    op.output_at = std::string(a->as_string());
  if (const json::value* a = o.if_contains("inputs_at"); a && a->is_array())
    for (const json::value& x : a->as_array())
      op.inputs_at.push_back(x.is_string() ? std::string(x.as_string()) : std::string());
  if (const json::value* a = o.if_contains("at"); a && a->is_string())
    op.at = std::string(a->as_string());
  if (const json::value* r = o.if_contains("shape_rule"); r && r->is_string())
    op.shape_rule = std::string(r->as_string());
  if (const json::value* b = o.if_contains("broadcast"); b && b->is_bool())
    op.broadcast = b->as_bool();
  return op;
}

// Runs a reader; a value of the wrong JSON type or a missing key deep inside (Boost.JSON's
// as_object(), at(), ...) becomes INVALID_ARGUMENT naming the document, not an internal error.
template <class Read>
auto guarded(const char* document, Read read) {
  try {
    return read();
  } catch (const oi::abi::StatusError&) {
    throw;
  } catch (const std::exception& e) {
    invalid_plan(std::string("malformed ") + document + " (" + e.what() + ")");
  }
}

PlanIn read_plan_unguarded(const std::string& json_text);
DeviceIn read_device_unguarded(const std::string& json_text);

}  // namespace

PlanIn read_plan(const std::string& json_text) {
  return guarded("plan", [&] { return read_plan_unguarded(json_text); });
}

DeviceIn read_device(const std::string& json_text) {
  return guarded("device description", [&] { return read_device_unguarded(json_text); });
}

namespace {

PlanIn read_plan_unguarded(const std::string& json_text) {
  const json::value root = parse(json_text, "plan");
  if (!root.is_object()) invalid_plan("the plan is not a JSON object");
  const json::object& o = root.as_object();
  if (const json::value* f = o.if_contains("format");
      f == nullptr || !f->is_string() || f->as_string() != "openinfer-synth-plan")
    invalid_plan("the plan's format is not \"openinfer-synth-plan\"");
  const json::value& version = key(o, "version", "the plan");
  if (!version.is_int64() || version.as_int64() != 1)
    invalid_plan("plan JSON version " + json::serialize(version) +
                 " (this emitter reads version 1)");
  PlanIn plan;
  if (const json::value* g = o.if_contains("graph"); g && g->is_string())
    plan.graph = std::string(g->as_string());
  if (const json::value* sv = o.if_contains("sizevars"); sv && sv->is_object())
    for (const auto& kv : sv->as_object())
      plan.sizevars[std::string(kv.key())] = to_u64(kv.value(), "sizevar");
  const json::value& values = key(o, "values", "the plan");
  if (!values.is_array()) invalid_plan("the plan's values must be an array");
  for (const json::value& v : values.as_array()) {
    if (!v.is_object()) invalid_plan("a plan value is not an object");
    plan.value_index[std::string(v.as_object().at("name").as_string())] = plan.values.size();
    plan.values.push_back(read_value(v.as_object()));
  }
  const json::value& kernels = key(o, "kernels", "the plan");
  if (!kernels.is_array()) invalid_plan("the plan's kernels must be an array");
  for (const json::value& kv : kernels.as_array()) {
    if (!kv.is_object()) invalid_plan("a plan kernel is not an object");
    const json::object& k = kv.as_object();
    KernelIn kernel;
    kernel.id = static_cast<uint32_t>(to_u64(key(k, "id", "a kernel"), "kernel id"));
    const std::string where = "kernel " + std::to_string(kernel.id);
    kernel.kind = text(key(k, "kind", where), where + " kind");
    kernel.shape = dims(key(k, "shape", where), where + " shape");
    const json::value& ops = key(k, "ops", where);
    if (!ops.is_array() || ops.as_array().empty())
      invalid_plan(where + ": ops must be a non-empty array");
    for (const json::value& op : ops.as_array()) {
      if (!op.is_object()) invalid_plan(where + ": an op is not an object");
      kernel.ops.push_back(read_op(op.as_object(), where));
    }
    kernel.reads = strings(key(k, "reads", where), where + " reads");
    kernel.writes = strings(key(k, "writes", where), where + " writes");
    kernel.internal = strings(key(k, "internal", where), where + " internal");
    if (kernel.id != plan.kernels.size()) invalid_plan(where + ": kernel ids must be 0, 1, 2, ...");
    plan.kernels.push_back(std::move(kernel));
  }
  const json::value& blocks = key(o, "blocks", "the plan");
  if (!blocks.is_array()) invalid_plan("the plan's blocks must be an array");
  plan.blocks = blocks.as_array();
  const json::value& memory = key(o, "memory", "the plan");
  if (!memory.is_object()) invalid_plan("the plan's memory must be an object");
  plan.arena_bytes = to_u64(key(memory.as_object(), "arena_bytes", "memory"), "arena_bytes");
  plan.alignment = static_cast<uint32_t>(
      to_u64(key(memory.as_object(), "alignment", "memory"), "memory alignment"));
  return plan;
}

// The loop indices around each kernel step of `steps`.
void kernel_loops(const json::array& steps, std::vector<std::string>& loops,
                  std::map<int64_t, std::vector<std::string>>& out) {
  for (const json::value& st : steps) {
    if (!st.is_object()) continue;
    const json::object& o = st.as_object();
    const json::value* kind = o.if_contains("kind");
    if (!kind || !kind->is_string()) continue;
    if (kind->as_string() == "kernel" && o.contains("kernel") && o.at("kernel").is_int64())
      out[o.at("kernel").as_int64()] = loops;
    if (kind->as_string() == "loop" && o.contains("body") && o.at("body").is_array()) {
      loops.push_back(o.contains("index") ? text(o.at("index"), "loop index") : "");
      kernel_loops(o.at("body").as_array(), loops, out);
      loops.pop_back();
    }
  }
}

// A scalar of `dtype` from its bytes as a setting value: integers as integers, bool as bool,
// floats (the narrow ones widened exactly) as doubles.
json::value scalar_value(const std::string& dtype, const std::string& bytes) {
  uint64_t b = 0;
  std::memcpy(&b, bytes.data(), std::min<size_t>(bytes.size(), 8));
  auto sext = [&](int bits) {
    const uint64_t m = uint64_t{1} << (bits - 1);
    return static_cast<int64_t>(((b & ((m << 1) - 1)) ^ m) - m);
  };
  if (dtype == "f64") return std::bit_cast<double>(b);
  if (dtype == "f32") return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(b)));
  if (dtype == "f16") return static_cast<double>(oi::f16_bits_to_f32(uint16_t(b)));
  if (dtype == "bf16") return static_cast<double>(oi::bf16_bits_to_f32(uint16_t(b)));
  if (dtype == "f8") return static_cast<double>(oi::f8_bits_to_f32(uint8_t(b)));
  if (dtype == "bool") return (b & 0xff) != 0;
  if (dtype == "i8") return sext(8);
  if (dtype == "i16") return sext(16);
  if (dtype == "i32") return sext(32);
  if (dtype == "i64") return static_cast<int64_t>(b);
  if (dtype == "u8") return b & 0xff;
  if (dtype == "u16") return b & 0xffff;
  if (dtype == "u32") return b & 0xffffffffu;
  // the packed integers (a scalar: one byte, the value in its low bits, as oinf.md packs it)
  if (dtype == "i4") return sext(4);
  if (dtype == "i2") return sext(2);
  if (dtype == "i1") return sext(1);
  if (dtype == "u4") return b & 0xf;
  if (dtype == "u2") return b & 0x3;
  if (dtype == "u1") return b & 0x1;
  return b;  // u64
}

// The @init literal of a scalar of `dtype` as the bytes the simulator stores (floats rounded
// once to the dtype, integers wrapped), or nullopt for a literal that is not a number.
std::optional<std::string> init_bytes(const std::string& dtype, const json::value& init) {
  double d = 0;
  if (init.is_bool())
    d = init.as_bool();
  else if (init.is_number())
    d = init.to_number<double>();
  else if (init.is_string() && init.as_string() == "inf")
    d = INFINITY;
  else if (init.is_string() && init.as_string() == "-inf")
    d = -INFINITY;
  else
    return std::nullopt;
  uint64_t b = 0;
  if (dtype == "f64")
    b = std::bit_cast<uint64_t>(d);
  else if (dtype == "f32")
    b = std::bit_cast<uint32_t>(static_cast<float>(d));
  else if (dtype == "f16")
    b = oi::f64_to_f16_bits(d);
  else if (dtype == "bf16")
    b = oi::f64_to_bf16_bits(d);
  else if (dtype == "f8")
    b = oi::f64_to_f8_bits(d);
  else if (dtype == "bool")
    b = d != 0;
  else if (init.is_int64())
    b = static_cast<uint64_t>(init.as_int64());
  else if (init.is_uint64())
    b = init.as_uint64();
  else
    b = static_cast<uint64_t>(static_cast<int64_t>(d));
  return std::string(reinterpret_cast<const char*>(&b), 8);
}

// The setting value of constant scalar v (a number or bool dtype), else nullopt.
std::optional<json::value> constant_setting(PlanIn& plan, const ValueIn& v,
                                            const ModelScalar& model) {
  static const std::map<std::string, uint32_t> kTags = {
      {"f32", 10}, {"f64", 11}, {"i32", 3}, {"i64", 4}, {"i8", 1},    {"i16", 2}, {"u8", 5},
      {"u16", 6},  {"u32", 7},  {"u64", 8}, {"f16", 9}, {"bf16", 16}, {"f8", 17}, {"bool", 12},
      {"i4", 18},  {"i2", 19},  {"i1", 20}, {"u4", 21}, {"u2", 22},   {"u1", 23}};
  auto tag = kTags.find(v.dtype);
  if (v.storage != "constant" || v.elements != 1 || !v.shape.empty() || v.is_table() ||
      tag == kTags.end())
    return std::nullopt;
  std::optional<std::string> bytes;
  if (!v.link.empty() && model) bytes = model(v.link, tag->second);
  if (bytes) {
    plan.baked.push_back({v.name, v.link, *bytes});
    return scalar_value(v.dtype, *bytes);
  }
  if (!v.init) return std::nullopt;
  if (auto b = init_bytes(v.dtype, *v.init)) return scalar_value(v.dtype, *b);
  return std::nullopt;
}

DeviceIn read_device_unguarded(const std::string& json_text) {
  const json::value root = parse(json_text, "device description");
  if (!root.is_object()) invalid_plan("the device description is not a JSON object");
  const json::object& o = root.as_object();
  DeviceIn d;
  const json::value& device = key(o, "device", "the device description");
  if (!device.is_object()) invalid_plan("device description: 'device' must be an object");
  d.type = text(key(device.as_object(), "type", "device"), "device.type");
  if (const json::value* n = device.as_object().if_contains("name"); n && n->is_string())
    d.name = std::string(n->as_string());
  if (d.type != "gpu")
    device_limit(d, "the device description",
                 "the glsl target needs a GPU device description (device.type \"gpu\")",
                 "device.type " + d.type);
  const json::value& limits = key(o, "limits", "the device description");
  if (!limits.is_object()) invalid_plan("device description: 'limits' must be an object");
  const json::object& l = limits.as_object();
  const json::value& wg = key(l, "max_workgroup_size", "limits");
  if (!wg.is_array() || wg.as_array().size() != 3)
    invalid_plan("device key 'limits.max_workgroup_size': expected 3 positive integers");
  for (int i = 0; i < 3; ++i) {
    d.wg_size[i] = to_u64(wg.as_array()[i], "limits.max_workgroup_size");
    if (d.wg_size[i] == 0)
      invalid_plan("device key 'limits.max_workgroup_size': expected 3 positive integers");
  }
  if (const json::value* v = l.if_contains("max_workgroup_invocations"))
    d.wg_invocations = to_u64(*v, "limits.max_workgroup_invocations");
  if (d.wg_invocations == 0) d.wg_invocations = d.wg_size[0];
  d.shared_bytes =
      to_u64(key(l, "max_shared_memory_bytes", "limits"), "limits.max_shared_memory_bytes");
  d.max_buffer_range = to_u64(key(l, "max_storage_buffer_range_bytes", "limits"),
                              "limits.max_storage_buffer_range_bytes");
  if (const json::value* f = o.if_contains("features"); f && f->is_object()) {
    if (const json::value* h = f->as_object().if_contains("fp16"); h && h->is_bool())
      d.fp16 = h->as_bool();
    if (const json::value* h = f->as_object().if_contains("fp64"); h && h->is_bool())
      d.fp64 = h->as_bool();
    d.int64 = d.fp64;  // absent: as fp64 (the Vulkan GPUs with one offer the other)
    if (const json::value* h = f->as_object().if_contains("int64"); h && h->is_bool())
      d.int64 = h->as_bool();
    if (const json::value* h = f->as_object().if_contains("subgroup_ops"); h && h->is_bool())
      d.subgroup_ops = h->as_bool();
  }
  if (const json::value* v = l.if_contains("subgroup_size"))
    d.subgroup_size = to_u64(*v, "limits.subgroup_size");
  if (const json::value* v = l.if_contains("max_rank"))
    d.max_rank = std::min<uint64_t>(d.max_rank, to_u64(*v, "limits.max_rank"));
  if (const json::value* v = l.if_contains("max_head_dim"))
    d.max_head_dim = std::min<uint64_t>(d.max_head_dim, to_u64(*v, "limits.max_head_dim"));
  if (const json::value* v = l.if_contains("max_elements"))
    d.max_elements = std::min<uint64_t>(d.max_elements, to_u64(*v, "limits.max_elements"));
  return d;
}

}  // namespace

void resolve_settings(PlanIn& plan, const ModelScalar& model) {
  std::map<int64_t, std::vector<std::string>> loops_of;
  std::vector<std::string> loops;
  for (const json::value& b : plan.blocks)
    if (b.is_object() && b.as_object().contains("steps") && b.at("steps").is_array())
      kernel_loops(b.at("steps").as_array(), loops, loops_of);
  for (KernelIn& k : plan.kernels) {
    const std::vector<std::string>& around = loops_of[k.id];
    for (OpIn& op : k.ops)
      for (auto& kv : op.settings) {
        const json::object* named = kv.value().if_object();
        if (!named || !named->contains("name") || !named->at("name").is_string()) continue;
        const std::string name(named->at("name").as_string());
        if (std::find(around.begin(), around.end(), name) != around.end()) continue;
        const std::string where =
            op_where(op) + ": setting '" + std::string(kv.key()) + "' names '" + name + "'";
        if (auto it = plan.value_index.find(name); it != plan.value_index.end()) {
          const ValueIn& v = plan.values[it->second];
          if (auto c = constant_setting(plan, v, model)) {
            kv.value() = *c;
            continue;
          }
          // The validator refuses both (`openinfer run` and `synth` alike): a setting names a
          // scalar of constant memory, and a constant has a model entry or an @init value.
          if (v.storage != "constant" || v.elements != 1 || !v.shape.empty() || v.is_table())
            invalid_plan(where + ", which is not a scalar of constant memory");
          invalid_plan(where + ": constant '" + name +
                       "' has neither a model entry nor an @init value");
        }
        if (auto it = plan.sizevars.find(name); it != plan.sizevars.end()) {
          kv.value() = static_cast<int64_t>(it->second);
          continue;
        }
        invalid_plan(where + ", which is neither a loop index, a variable nor a size variable");
      }
  }
}

}  // namespace oi::glsl
