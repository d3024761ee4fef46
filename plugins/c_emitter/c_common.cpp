// The C emitter's shared helpers (c_common.hpp).
#include "c_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "openinfer/broadcast.hpp"
#include "openinfer/float_formats.hpp"

namespace oi::c_emitter {

namespace {
thread_local EmitProfile g_profile;
}  // namespace

const EmitProfile& emit_profile() {
  return g_profile;
}

ProfileScope::ProfileScope(const EmitProfile& p) : saved_(g_profile) {
  g_profile = p;
}

ProfileScope::~ProfileScope() {
  g_profile = saved_;
}

std::string str(const json::value& v) {
  return std::string(v.as_string());
}

const char* c_type(const std::string& dtype) {
  if (dtype == "f32") return "float";
  if (dtype == "f64") return "double";
  if (dtype == "i32") return "int32_t";
  if (dtype == "i64") return "int64_t";   // argmax/argmin results, gather indices, storage
  if (dtype == "bool") return "uint8_t";  // comparisons' results, masks, branch conditions
  // The other whole-byte integers: storage, integer arithmetic and casts (ops_arith.cpp).
  if (dtype == "i8") return "int8_t";
  if (dtype == "i16") return "int16_t";
  if (dtype == "u8") return "uint8_t";
  if (dtype == "u16") return "uint16_t";
  if (dtype == "u32") return "uint32_t";
  if (dtype == "u64") return "uint64_t";
  // 16-bit floats are stored as their bits; kernels convert through oi_*_to_f32 (casts only).
  if (dtype == "f16" || dtype == "bf16") return "uint16_t";
  if (dtype == "f8") return "uint8_t";       // E5M2, stored as its bits too
  if (dtype == "bitset") return "uint8_t";   // 8 flags a byte (the C kernel library's ops)
  if (packed_bits(dtype)) return "uint8_t";  // packed integers: bytes, read through oi_get_*
  return nullptr;
}

unsigned packed_bits(const std::string& dtype) {
  if (dtype == "i4" || dtype == "u4") return 4;
  if (dtype == "i2" || dtype == "u2" || dtype == "t2") return 2;
  if (dtype == "i1" || dtype == "u1" || dtype == "t1") return 1;
  return 0;
}

std::string value_type(const std::string& dtype) {
  return packed_bits(dtype) ? "int32_t" : c_type(dtype);
}

std::string load(const std::string& dtype, const std::string& ptr, const std::string& index) {
  if (!packed_bits(dtype)) return ptr + "[" + index + "]";
  return "oi_get_" + dtype + "(" + ptr + ", " + index + ")";
}

std::string store(const std::string& dtype, const std::string& ptr, const std::string& index,
                  const std::string& v) {
  if (!packed_bits(dtype)) return ptr + "[" + index + "] = " + v + ";";
  return "oi_set_" + dtype + "(" + ptr + ", " + index + ", " + v + ");";
}

uint32_t dtype_tag(const std::string& dtype) {
  if (dtype == "bitset") return 13;
  return dtype == "f32"    ? 10
         : dtype == "f64"  ? 11
         : dtype == "bool" ? 12
         : dtype == "i64"  ? 4
         : dtype == "f16"  ? 9
         : dtype == "bf16" ? 16
         : dtype == "f8"   ? 17
         : dtype == "i4"   ? 18
         : dtype == "i2"   ? 19
         : dtype == "i1"   ? 20
         : dtype == "u4"   ? 21
         : dtype == "u2"   ? 22
         : dtype == "u1"   ? 23
         : dtype == "t2"   ? 24
         : dtype == "t1"   ? 25
         : dtype == "i8"   ? 1
         : dtype == "i16"  ? 2
         : dtype == "u8"   ? 5
         : dtype == "u16"  ? 6
         : dtype == "u32"  ? 7
         : dtype == "u64"  ? 8
                           : 3;
}

uint64_t dtype_size(const std::string& dtype) {
  if (dtype == "bitset") return 1;
  return dtype == "f64" || dtype == "i64" || dtype == "u64"                      ? 8
         : dtype == "bool" || dtype == "f8" || dtype == "i8" || dtype == "u8"    ? 1
         : dtype == "f16" || dtype == "bf16" || dtype == "i16" || dtype == "u16" ? 2
                                                                                 : 4;
}

uint64_t value_bytes(const std::string& dtype, uint64_t numel) {
  if (const unsigned bits = packed_bits(dtype)) return (numel * bits + 7) / 8;
  return numel * dtype_size(dtype);
}

void invalid_plan(const std::string& what) {
  throw InvalidPlan("c emitter: invalid plan: " + what);
}

void c_gap(const std::string& key, const std::string& what) {
  throw CGap(key, "c emitter: " + what);
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".einn") == std::string::npos) s += ".0";
  return s;
}

std::string literal(const json::value& v, const std::string& dtype, const std::string& what) {
  // A setting naming a loop index (c_generator.cpp): the kernel's parameter, converted as the
  // simulator converts an integer setting.
  if (const auto* o = v.if_object(); o && o->contains("loop_index")) {
    if (packed_bits(dtype) || !c_type(dtype) || dtype == "f16" || dtype == "bf16" ||
        dtype == "f8" || dtype == "bool")
      throw LibraryInstead("c emitter: " + what +
                           " naming a loop index: left to the C kernel library for " + dtype);
    return "(" + std::string(c_type(dtype)) + ")i_" + std::string(o->at("loop_index").as_string());
  }
  if (packed_bits(dtype)) {
    // an int32_t value, stored through oi_set_*; the validator checked its range
    if (v.is_int64()) return "(int32_t)" + std::to_string(v.as_int64());
    if (v.is_bool()) return v.as_bool() ? "(int32_t)1" : "(int32_t)0";
    throw LibraryInstead("c emitter: " + what + " value " + json::serialize(v) +
                         ": left to the C kernel library for " + dtype);
  }
  if (dtype == "f16" || dtype == "bf16" || dtype == "f8") {
    // Stored as bits: the literal rounded once from f64, as the simulator fills a tensor.
    double d = 0;
    if (v.is_int64() || v.is_uint64() || v.is_double())
      d = v.to_number<double>();
    else if (v.is_string() && (v.as_string() == "inf" || v.as_string() == "-inf"))
      d = v.as_string() == "inf" ? HUGE_VAL : -HUGE_VAL;
    else
      throw LibraryInstead("c emitter: " + what + " value " + json::serialize(v) +
                           ": left to the C kernel library for " + dtype);
    const unsigned bits = dtype == "f16"    ? f64_to_f16_bits(d)
                          : dtype == "bf16" ? f64_to_bf16_bits(d)
                                            : f64_to_f8_bits(d);
    return "(" + std::string(c_type(dtype)) + ")" + std::to_string(bits) + "u";
  }
  const bool flt = dtype == "f32" || dtype == "f64";
  if (v.is_int64() && dtype == "i64" && v.as_int64() == INT64_MIN)
    return "(int64_t)(-9223372036854775807LL - 1)";
  if (v.is_uint64() && !flt)  // past INT64_MAX: a u64
    return "(" + std::string(c_type(dtype)) + ")" + std::to_string(v.as_uint64()) + "ULL";
  if (v.is_int64())
    return flt ? "(" + std::string(c_type(dtype)) + ")" + number(double(v.as_int64()))
               : "(" + std::string(c_type(dtype)) + ")" + std::to_string(v.as_int64()) +
                     (dtype == "i64" || dtype == "u64" ? "LL" : "");
  if (v.is_double() && flt) return "(" + std::string(c_type(dtype)) + ")" + number(v.as_double());
  if (v.is_bool()) return std::string("(") + c_type(dtype) + ")" + (v.as_bool() ? "1" : "0");
  if (v.is_string() && flt && (v.as_string() == "inf" || v.as_string() == "-inf"))
    return std::string(v.as_string() == "inf" ? "" : "-") + "(" + c_type(dtype) + ")INFINITY";
  throw LibraryInstead("c emitter: " + what + " value " + json::serialize(v) +
                       ": left to the C kernel library for " + dtype);
}

std::string index_expr(const std::vector<uint64_t>& in, const std::vector<uint64_t>& shape) {
  if (in == shape) return "i";
  uint64_t numel = 1;
  for (uint64_t d : in) numel *= d;
  if (numel == 1) return "0";
  const std::vector<uint64_t> in_strides = geometry::broadcast_strides(in, shape);  // the SDK's
  std::string expr;
  uint64_t out_stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (in_strides[k] != 0) {  // 0: the input repeats along k
      if (!expr.empty()) expr += " + ";
      expr += "(i / " + std::to_string(out_stride) + "u % " + std::to_string(shape[k]) + "u) * " +
              std::to_string(in_strides[k]) + "u";
    }
    out_stride *= shape[k];
  }
  return expr.empty() ? "0" : "(" + expr + ")";  // empty: an input of no elements
}

std::string u(uint64_t v) {
  return std::to_string(v) + "u";
}

std::vector<uint64_t> strides_of(const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> st(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) st[k - 1] = st[k] * shape[k];
  return st;
}

void check_settings(const json::object& settings, const std::vector<std::string>& allowed,
                    const std::string& where) {
  for (const auto& kv : settings) {
    if (std::find(allowed.begin(), allowed.end(), std::string(kv.key())) == allowed.end())
      throw LibraryInstead("c emitter: " + where + ": setting '" + std::string(kv.key()) +
                           "': left to the C kernel library");
    if (kv.value().is_object())  // {"name": N}: a setting read from a variable at run time
      throw LibraryInstead("c emitter: " + where + ": setting '" + std::string(kv.key()) +
                           "' naming a variable: left to the C kernel library");
  }
}

int64_t int_setting(const json::object& settings, const char* key, int64_t fallback,
                    const std::string& where) {
  if (!settings.contains(key)) return fallback;
  const auto& v = settings.at(key);
  if (v.is_int64()) return v.as_int64();
  if (v.is_uint64()) return static_cast<int64_t>(v.as_uint64());
  invalid_plan(where + ": setting '" + key + "' is not an integer");
}

std::vector<int64_t> int_list_setting(const json::object& settings, const char* key,
                                      const std::string& where) {
  std::vector<int64_t> out;
  if (!settings.contains(key)) return out;
  const auto& v = settings.at(key);
  if (!v.is_array()) invalid_plan(where + ": setting '" + key + "' is not a list");
  for (const auto& e : v.as_array()) {
    if (!e.is_int64() && !e.is_uint64())
      invalid_plan(where + ": setting '" + key + "' holds a non-integer");
    out.push_back(e.to_number<int64_t>());
  }
  return out;
}

std::string op_where(const json::object& op) {
  return "op '" + str(op.at("op")) + "' (line " + json::serialize(op.at("line")) + ")";
}

const Value& whole_operand(const KernelEnv& env, const json::value& name, const json::object&) {
  return env.operand(str(name));
}

std::string Value::entry_link(uint64_t e) const {
  if (pattern.empty()) return link + "." + std::to_string(e);
  std::string out = pattern;
  const std::string key = "{" + index + "}";
  for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at))
    out.replace(at, key.size(), std::to_string(e));
  return out;
}

}  // namespace oi::c_emitter
