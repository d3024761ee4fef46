// Kernels as calls into the C kernel library (library_calls.hpp). Each op becomes one call on
// whole tensors, the settings passed as the entry point's signature class wants them
// (docs/c-kernels.md "Signature classes"), with the defaults of ops.md where a setting is
// absent.
#include "library_calls.hpp"

#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include "openinfer/shift_bits.hpp"
#include "tables.hpp"

namespace oi::c_emitter {
namespace {

bool arena_overlap(const Value& a, const Value& b) {
  return a.storage == "arena" && b.storage == "arena" && a.offset < b.offset + b.bytes &&
         b.offset < a.offset + a.bytes;
}

uint64_t storage_bytes(const Value& v) {
  const unsigned bits = packed_bits(v.dtype);
  return bits ? (v.numel() * bits + 7) / 8 : v.numel() * dtype_size(v.dtype);
}

// Classes whose kernels read element i of every input before writing element i of the
// output, so the output may be an input of its own dtype and shape (docs/c-kernels.md: in
// place is the same entry point with the output's data equal to that input's).
bool elementwise_in_place(const std::string& cls) {
  static const std::set<std::string> classes = {
      "ew1",    "ew2",    "ew3",   "div_f",  "div_i",  "recip",      "clamp_f", "clamp_i",
      "relu_f", "relu_i", "shift", "fill_f", "fill_i", "batch_norm", "rope"};
  return classes.count(cls) != 0;
}

// The settings of one op as C arguments.
class Settings {
 public:
  Settings(const json::object& s, std::string where, std::ostringstream& decls, int& arrays)
      : s_(s), where_(std::move(where)), decls_(decls), arrays_(arrays) {
    // A setting naming a loop index ({"loop_index": N}, c_generator.cpp resolve_settings) is
    // the kernel's parameter i_N; every other name was resolved when the plan was read.
    for (const auto& kv : s_)
      if (kv.value().is_object() && !loop_index(&kv.value()))
        invalid_plan(where_ + ": setting '" + std::string(kv.key()) + "' names a variable");
  }

  // The loop index a setting names, or nullptr.
  static const json::string* loop_index(const json::value* v) {
    const auto* o = v ? v->if_object() : nullptr;
    const json::value* i = o ? o->if_contains("loop_index") : nullptr;
    return i && i->is_string() ? &i->as_string() : nullptr;
  }

  const json::value* get(const char* key) const { return s_.if_contains(key); }
  bool has(const char* key) const { return get(key) != nullptr; }

  // A float setting as a C double; `fallback` is a C expression.
  std::string f64(const char* key, const std::string& fallback, const char* alias = nullptr) const {
    const json::value* v = get(key);
    if (!v && alias) v = get(alias);
    if (!v) return fallback;
    if (const auto* i = loop_index(v)) return "(double)i_" + std::string(*i);
    if (v->is_string()) {
      const auto t = v->as_string();
      if (t == "inf") return "INFINITY";
      if (t == "-inf") return "-INFINITY";
      if (t == "nan") return "NAN";
    }
    if (v->is_bool()) return v->as_bool() ? "1.0" : "0.0";
    if (v->is_int64() || v->is_uint64() || v->is_double()) {
      const double d = v->to_number<double>();
      if (std::isinf(d)) return d > 0 ? "INFINITY" : "-INFINITY";
      if (std::isnan(d)) return "NAN";
      return number(d);
    }
    invalid_plan(where_ + ": setting '" + key + "' is not a number");
  }

  // Whether a number setting bounds anything (the ±inf defaults of ops.md mean "absent").
  bool finite(const char* key) const {
    const json::value* v = get(key);
    if (!v) return false;
    if (loop_index(v)) return true;
    if (v->is_string()) return false;  // "inf", "-inf"
    if (v->is_double()) return std::isfinite(v->as_double());
    return true;
  }

  // An integer setting as a C int64_t (a u64 above INT64_MAX as its two's-complement bits).
  std::string i64(const char* key, int64_t fallback, const char* alias = nullptr) const {
    const json::value* v = get(key);
    if (!v && alias) v = get(alias);
    if (!v) return int_literal(fallback);
    if (const auto* i = loop_index(v)) return "(int64_t)i_" + std::string(*i);
    if (v->is_bool()) return v->as_bool() ? "INT64_C(1)" : "INT64_C(0)";
    if (v->is_int64()) return int_literal(v->as_int64());
    if (v->is_uint64()) return "(int64_t)UINT64_C(" + std::to_string(v->as_uint64()) + ")";
    if (v->is_double() && std::nearbyint(v->as_double()) == v->as_double() &&
        std::fabs(v->as_double()) < 9.2e18)
      return int_literal(static_cast<int64_t>(v->as_double()));
    invalid_plan(where_ + ": setting '" + key + "' is not an integer");
  }

  // A boolean setting as a C int.
  std::string flag(const char* key, bool fallback) const {
    const json::value* v = get(key);
    if (!v) return fallback ? "1" : "0";
    if (const auto* i = loop_index(v)) return "(i_" + std::string(*i) + " != 0)";
    if (v->is_bool()) return v->as_bool() ? "1" : "0";
    if (v->is_number()) return v->to_number<double>() != 0 ? "1" : "0";
    invalid_plan(where_ + ": setting '" + key + "' is not a boolean");
  }

  std::string text(const char* key, const char* fallback) const {
    const json::value* v = get(key);
    if (!v) return fallback;
    if (!v->is_string()) invalid_plan(where_ + ": setting '" + key + "' is not text");
    return std::string(v->as_string());
  }

  // An integer list as a static array of the call's block, or NULL when absent; `count` gets
  // its length.
  std::string list(const char* key, size_t* count = nullptr) {
    if (count) *count = 0;
    const json::value* v = get(key);
    if (!v) return "NULL";
    if (!v->is_array()) invalid_plan(where_ + ": setting '" + key + "' is not a list");
    const std::string name = "l" + std::to_string(arrays_++);
    decls_ << "    static const int64_t " << name << "[] = {";
    for (const auto& e : v->as_array()) {
      if (!e.is_int64() && !e.is_uint64())
        invalid_plan(where_ + ": setting '" + key + "' holds a non-integer");
      decls_ << int_literal(e.to_number<int64_t>()) << ", ";
    }
    decls_ << "0};\n";  // a trailing 0: an empty list is still an array
    if (count) *count = v->as_array().size();
    return name;
  }

  static std::string int_literal(int64_t v) {
    if (v == INT64_MIN) return "INT64_MIN";
    return "INT64_C(" + std::to_string(v) + ")";
  }

 private:
  const json::object& s_;
  std::string where_;
  std::ostringstream& decls_;
  int& arrays_;
};

// The arguments of an entry point of class `cls` before its oik_error*: the tensors (`&x0`...,
// `&y`; NULL for an absent optional input) and the settings.
std::vector<std::string> call_arguments(const std::string& cls, const std::string& op,
                                        const std::string& in0_dtype, size_t n_in, Settings& s) {
  std::vector<std::string> x;
  for (size_t i = 0; i < n_in; ++i) x.push_back("&x" + std::to_string(i));
  auto opt = [&](size_t i) { return i < n_in ? x[i] : std::string("NULL"); };
  const std::string y = "&y";
  const bool is_bool = in0_dtype == "bool";
  // The tensors the class takes before its optional ones.
  static const std::map<std::string, size_t> inputs = {
      {"ew2", 2},      {"ew3", 3},        {"div_f", 2},  {"div_i", 2},  {"layer_norm", 2},
      {"rms_norm", 2}, {"batch_norm", 5}, {"gather", 2}, {"conv", 2},   {"attention", 3},
      {"rope", 2},     {"dequantize", 2}, {"matmul", 2}, {"fill_f", 0}, {"fill_i", 0}};
  const auto it = inputs.find(cls);
  const size_t needed = it != inputs.end() ? it->second : 1;
  if (n_in < needed)
    invalid_plan("op '" + op + "' has " + std::to_string(n_in) + " inputs, its kernel needs " +
                 std::to_string(needed));
  if (cls == "ew1") return {x[0], y};
  if (cls == "ew2") return {x[0], x[1], y};
  if (cls == "ew3") return {x[0], x[1], x[2], y};
  if (cls == "div_f" || cls == "div_i") {
    const bool has = s.has("div_by_zero_mask");
    return {x[0], x[1], y, has ? "1" : "0",
            cls == "div_f" ? s.f64("div_by_zero_mask", "0.0") : s.i64("div_by_zero_mask", 0)};
  }
  if (cls == "recip")
    return {x[0], y, s.has("div_by_zero_mask") ? "1" : "0", s.f64("div_by_zero_mask", "0.0")};
  if (cls == "clamp_f") return {x[0], y, s.f64("min", "-INFINITY"), s.f64("max", "INFINITY")};
  if (cls == "clamp_i") {
    const bool lo = s.finite("min"), hi = s.finite("max");
    return {x[0],           y,
            lo ? "1" : "0", lo ? s.i64("min", 0) : "0",
            hi ? "1" : "0", hi ? s.i64("max", 0) : "0"};
  }
  if (cls == "relu_f")
    return {x[0], y, s.f64("alpha", "0.0", "negative_slope"), s.f64("clamp_min", "-INFINITY"),
            s.f64("clamp_max", "INFINITY")};
  if (cls == "relu_i") {
    const bool lo = s.finite("clamp_min"), hi = s.finite("clamp_max");
    return {x[0],
            y,
            s.i64("alpha", 0, "negative_slope"),
            lo ? "1" : "0",
            lo ? s.i64("clamp_min", 0) : "0",
            hi ? "1" : "0",
            hi ? s.i64("clamp_max", 0) : "0"};
  }
  if (cls == "shift") return {x[0], y, s.i64("bits", 0)};
  if (cls == "fill_f") return {y, s.f64("value", "0.0")};
  if (cls == "fill_i")
    return {y, is_bool ? std::string(s.f64("value", "0.0") == "0.0" ? "INT64_C(0)" : "INT64_C(1)")
                       : s.i64("value", 0)};
  if (cls == "reduce") {
    size_t n = 0;
    const std::string axes = s.list("axes", &n);
    return {x[0], y, axes, axes == "NULL" ? "-1" : std::to_string(n)};
  }
  if (cls == "arg") return {x[0], y, s.i64("axis", 0), s.flag("select_first", true)};
  if (cls == "cast") {
    const std::string r = s.text("rounding_mode", "trunc");
    const std::string rounding = r == "floor"          ? "OIK_ROUND_FLOOR"
                                 : r == "ceil"         ? "OIK_ROUND_CEIL"
                                 : r == "nearest_even" ? "OIK_ROUND_NEAREST_EVEN"
                                                       : "OIK_ROUND_TRUNC";
    return {x[0], y, rounding, s.flag("saturate", true)};
  }
  if (cls == "gelu")
    return {x[0], y, s.text("approximate", "none") == "tanh" ? "OIK_GELU_TANH" : "OIK_GELU_NONE"};
  if (cls == "axis") return {x[0], y, s.i64("axis", -1)};
  if (cls == "layer_norm")
    return {x[0], x[1], opt(2), y, s.i64("axis", -1), s.f64("epsilon", "1e-05")};
  if (cls == "rms_norm") return {x[0], x[1], y, s.i64("axis", -1), s.f64("epsilon", "1e-06")};
  if (cls == "batch_norm") return {x[0], x[1], x[2], x[3], x[4], y, s.f64("epsilon", "1e-05")};
  if (cls == "transpose") return {x[0], y, s.list("perm")};
  if (cls == "concat") return {"xs", std::to_string(n_in) + "u", y, s.i64("axis", 0)};
  if (cls == "slice") {
    size_t n = 0;
    const std::string starts = s.list("starts", &n);
    const std::string ends = s.list("ends");
    const std::string axes = s.list("axes");
    const std::string steps = s.list("steps");
    return {x[0], y, starts, ends, axes, steps, std::to_string(n) + "u"};
  }
  if (cls == "gather") return {x[0], x[1], y, s.i64("axis", 0)};
  if (cls == "pad_f" || cls == "pad_i") {
    const std::string m = s.text("mode", "constant");
    const std::string mode = m == "reflect" ? "OIK_PAD_REFLECT"
                             : m == "edge"  ? "OIK_PAD_EDGE"
                                            : "OIK_PAD_CONSTANT";
    const std::string pads = s.list("pads");
    std::string value = cls == "pad_f" ? s.f64("value", "0.0") : s.i64("value", 0);
    if (cls == "pad_i" && is_bool)
      value = s.f64("value", "0.0") == "0.0" ? "INT64_C(0)" : "INT64_C(1)";
    return {x[0], y, pads, mode, value};
  }
  if (cls == "conv") {
    const std::string strides = s.list("strides"), pads = s.list("pads"),
                      dilations = s.list("dilations");
    return {x[0], x[1], opt(2), y, strides, pads, dilations, s.i64("group", 1)};
  }
  if (cls == "max_pool") {
    const std::string kernel = s.list("kernel"), strides = s.list("strides"), pads = s.list("pads"),
                      dilations = s.list("dilations");
    return {x[0], y, kernel, strides, pads, dilations};
  }
  if (cls == "avg_pool") {
    const std::string kernel = s.list("kernel"), strides = s.list("strides"), pads = s.list("pads");
    return {x[0], y, kernel, strides, pads, s.flag("count_include_pad", false)};
  }
  if (cls == "attention")
    return {x[0],
            x[1],
            x[2],
            opt(3),
            y,
            s.has("scale") ? "1" : "0",
            s.f64("scale", "0.0"),
            s.flag("causal", false)};
  if (cls == "rope")
    return {x[0], x[1], y, s.f64("theta", "10000.0"), s.flag("interleaved", false)};
  if (cls == "dequantize") return {x[0], x[1], opt(2), y, s.i64("axis", 1)};
  if (cls == "matmul") return {x[0], x[1], y, "NULL"};
  c_gap("library-signature", "op '" + op + "': the C kernel library's signature class '" + cls +
                                 "' is not supported yet");
}

}  // namespace

std::string library_entry_point(const KernelEnv& env, const json::object& op) {
  const std::string name = str(op.at("op"));
  const auto& ins = op.at("inputs").as_array();
  const std::string in0 = env.operand(str(ins.at(0))).dtype;
  const auto& settings = op.at("settings").as_object();
  if (name == "cast") return "oik_cast_" + in0 + "_" + env.operand(str(op.at("output"))).dtype;
  if (name == "dequantize")
    return "oik_dequantize_" + in0 + "_" + env.operand(str(ins.at(1))).dtype;
  if (const json::value* acc = settings.if_contains("acc"); acc && acc->is_string())
    return "oik_" + name + "_" + in0 + "_" + std::string(acc->as_string());
  return "oik_" + name + "_" + in0;
}

// The signature class of the op's entry point; CGap where the library has none.
std::string library_signature(const KernelEnv& env, const json::object& op,
                              const KernelLibrary& lib) {
  const std::string symbol = library_entry_point(env, op);
  const std::string cls = lib.signature(symbol);
  if (cls.empty())
    c_gap("library-entry-point",
          op_where(op) + " on " + env.operand(str(op.at("inputs").as_array().at(0))).dtype +
              " -> " + env.operand(str(op.at("output"))).dtype +
              " is not supported: the C kernel library has no entry point " + symbol);
  return cls;
}

// shl/shr by a `bits` named in the graph (a loop index, or a constant scalar or size variable
// resolved to a number when the C was written): the simulator's range check at run time
// (interpreter_op.cpp), in the same words, before the kernel shifts. A literal out of range
// never validates, so a number here out of range was named: the step fails whenever it runs.
std::string shift_bits_check(const KernelEnv& env, const json::object& op, const Settings& settings,
                             const std::string& in0, const std::string& on_fail) {
  const std::string name = str(op.at("op"));
  const json::value* bits = settings.get("bits");
  if ((name != "shl" && name != "shr") || !bits) return "";
  const int64_t width = packed_bits(in0) ? int64_t(packed_bits(in0)) : int64_t(dtype_size(in0) * 8);
  const bool index = Settings::loop_index(bits) != nullptr;
  if (!index && bits->is_int64() && shift_bits_in_range(bits->as_int64(), width)) return "";
  std::string at = str(op.at("at"));
  const size_t slash = at.find_last_of('/');
  if (emit_profile().freestanding && slash != std::string::npos) at = at.substr(slash + 1);
  const std::string count = settings.i64("bits", 0);
  std::string message = format_text(at + ": " + shift_bits_message(name, "\x01", width, in0));
  message.replace(message.find('\x01'), 1, "%lld");  // the count, printed by fail()
  return "    if (" + count + " < 0 || " + count + " >= " + std::to_string(width) +
         ") {\n      s->failed = fail(s, " + env.prefix() + "_ERR_RUN, \"" + message +
         "\", (long long)" + count + ");\n      " + on_fail + "\n    }\n";
}

std::string library_call(const KernelEnv& env, const json::object& op, const KernelLibrary& lib,
                         std::set<std::string>& used, const std::vector<std::string>& xs,
                         const std::string& y, const std::string& on_fail,
                         const std::string& after) {
  const std::string where = op_where(op), name = str(op.at("op"));
  const std::string symbol = library_entry_point(env, op);
  const std::string cls = library_signature(env, op, lib);
  const std::string in0 = env.operand(str(op.at("inputs").as_array().at(0))).dtype;
  used.insert(name);
  std::ostringstream decls, c;
  int arrays = 0;
  Settings settings(op.at("settings").as_object(), where, decls, arrays);
  const std::vector<std::string> args = call_arguments(cls, name, in0, xs.size(), settings);
  c << "  { /* " << where << " */\n";
  for (size_t i = 0; i < xs.size(); ++i)
    c << "    const oik_tensor x" << i << " = " << xs[i] << ";\n    (void)x" << i << ";\n";
  c << "    const oik_tensor y = " << y << ";\n" << decls.str();
  if (cls == "concat") {
    c << "    const oik_tensor* const xs[] = {";
    for (size_t i = 0; i < xs.size(); ++i) c << (i ? ", " : "") << "&x" << i;
    c << "};\n";
  }
  c << shift_bits_check(env, op, settings, in0, on_fail);
  c << "    oik_error e;\n    if (" << symbol << "(";
  for (const auto& a : args) c << a << ", ";
  c << "&e) != OIK_OK) {\n      s->failed = fail(s, " << env.prefix() << "_ERR_RUN, \"" << name
    << " (line " << json::serialize(op.at("line")) << "): %s\", e.message);\n      " << on_fail
    << "\n    }\n"
    << after << "  }\n";
  return c.str();
}

void write_library_calls(KernelEnv& env, const json::object& k, const KernelLibrary& lib,
                         std::set<std::string>& used, std::ostringstream& c) {
  struct OpIO {
    const json::object* op;
    std::vector<const Value*> ins;
    const Value* out;
  };
  std::vector<OpIO> io;
  for (const auto& jop : k.at("ops").as_array()) {
    const auto& op = jop.as_object();
    OpIO o{&op, {}, &env.operand(str(op.at("output")))};
    for (const auto& in : op.at("inputs").as_array()) o.ins.push_back(&env.operand(str(in)));
    io.push_back(std::move(o));
  }
  // Where each value's bytes are: its pointer p_NAME, or scratch for a value fused away and
  // for an output over bytes a later op still reads under another name (it lands at the end).
  std::map<std::string, std::string> loc;
  std::set<std::string> staged;
  for (size_t i = 0; i < io.size(); ++i) {
    const Value& w = *io[i].out;
    if (w.storage == "internal") continue;
    for (size_t j = i + 1; j < io.size(); ++j)
      for (const Value* r : io[j].ins)
        if (r->name != w.name && arena_overlap(w, *r)) staged.insert(w.name);
  }
  std::set<std::string> read_names;
  for (const auto& o : io)
    for (const Value* r : o.ins) read_names.insert(r->name);
  for (const auto& o : io) {
    const Value& w = *o.out;
    if (loc.count(w.name)) continue;
    if (w.storage != "internal" && !staged.count(w.name)) continue;
    const std::string field = env.scratch(std::max<uint64_t>(storage_bytes(w), 1));
    loc[w.name] = "b_" + w.name;
    c << "  unsigned char* const b_" << w.name << " = (unsigned char*)s->" << field << ";\n";
    if (staged.count(w.name) && read_names.count(w.name))
      c << "  memcpy(b_" << w.name << ", p_" << w.name << ", " << u(storage_bytes(w)) << ");\n";
  }
  auto where_is = [&](const Value& v) {
    auto it = loc.find(v.name);
    return it != loc.end() ? it->second : "p_" + v.name;
  };
  // Whether two operands' bytes may overlap, and whether they are the same bytes.
  auto may_overlap = [&](const Value& a, const Value& b) {
    if (a.name == b.name) return true;
    if (loc.count(a.name) || loc.count(b.name)) return false;
    return arena_overlap(a, b);
  };
  auto same_bytes = [&](const Value& a, const Value& b) {
    if (a.name == b.name) return true;
    if (loc.count(a.name) || loc.count(b.name)) return false;
    return a.storage == "arena" && b.storage == "arena" && a.offset == b.offset &&
           a.bytes == b.bytes;
  };
  // The dims of every shape, once.
  std::map<std::vector<uint64_t>, std::string> dims;
  auto dims_of = [&](const Value& v) -> std::string {
    if (v.shape.empty()) return "NULL";
    auto it = dims.find(v.shape);
    if (it != dims.end()) return it->second;
    const std::string name = "d" + std::to_string(dims.size());
    c << "  static const uint64_t " << name << "[] = {";
    for (size_t i = 0; i < v.shape.size(); ++i) c << (i ? ", " : "") << v.shape[i] << "u";
    c << "};\n";
    return dims.emplace(v.shape, name).first->second;
  };
  auto view = [&](const Value& v, const std::string& data) {
    return "{(void*)" + data + ", " + std::to_string(dtype_tag(v.dtype)) + "u, " +
           std::to_string(v.shape.size()) + "u, " + dims_of(v) + "}";
  };
  for (const auto& o : io) {
    const json::object& op = *o.op;
    const std::string cls = library_signature(env, op, lib);
    const Value& y = *o.out;
    // An output over one of its own inputs: in place where the kernel reads element i before
    // writing it, else into scratch first.
    bool stage = false;
    for (const Value* x : o.ins)
      if (may_overlap(*x, y) && !(elementwise_in_place(cls) && same_bytes(*x, y) &&
                                  x->dtype == y.dtype && x->shape == y.shape))
        stage = true;
    std::vector<std::string> xs;
    for (const Value* x : o.ins) xs.push_back(view(*x, where_is(*x)));
    const std::string out_at =
        stage ? "s->" + env.scratch(std::max<uint64_t>(storage_bytes(y), 1)) : where_is(y);
    const std::string y_view = view(y, out_at);
    const std::string copy_back =
        stage ? "    memcpy(" + where_is(y) + ", " + out_at + ", " + u(storage_bytes(y)) + ");\n"
              : "";
    c << library_call(env, op, lib, used, xs, y_view, "return;", copy_back);
  }
  for (const std::string& w : staged) {
    const Value& v = env.value(w);
    c << "  memcpy(p_" << w << ", b_" << w << ", " << u(storage_bytes(v)) << ");\n";
  }
  // Packed outputs: the last byte's unused bits are zero (oinf.md), whatever the arena held.
  std::set<std::string> cleared;
  for (const auto& o : io) {
    const Value& v = *o.out;
    const unsigned bits = packed_bits(v.dtype);
    if (!bits || v.storage == "internal" || v.numel() % (8 / bits) == 0) continue;
    if (!cleared.insert(v.name).second) continue;
    c << "  ((unsigned char*)p_" << v.name << ")[" << v.numel() / (8 / bits)
      << "] &= (unsigned char)" << ((1u << (v.numel() % (8 / bits) * bits)) - 1u) << "u;\n";
  }
}

}  // namespace oi::c_emitter
