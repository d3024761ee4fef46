// What the C emitter's parts share: the plan's values, C spellings of dtypes and literals, and
// the interface op generators (ops_*.cpp) see of the kernel being written.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "c_generator.hpp"

namespace oi::c_emitter {

namespace json = boost::json;

// One entry of the plan's `values`.
struct Value {
  std::string name, memory, storage, dtype;
  std::vector<uint64_t> shape;
  uint64_t bytes = 0, offset = 0;
  int64_t live_first = -1, live_last = -1;  // arena values: the entry steps holding the bytes
  bool zero_fill = false;
  std::string link;
  const json::value* init = nullptr;
  // A constant prefix table W(l): `entries` entries of `shape` (bytes counts them all), model
  // entries named by `pattern` ("layer.{l}.weight"), else link + ".l".
  bool table = false;
  uint64_t entries = 0;
  std::string index, pattern;
  std::string entry_link(uint64_t e) const;
  // A persistent table K(l, t) (tables.hpp): `shape` is one entry's, `bounds` the @fixed bound
  // per index (-1 where it grows), `bytes` one entry's. Its state is s->t_NAME (an oi_table).
  bool ptable = false;
  std::vector<std::string> indices;
  std::vector<int64_t> bounds;
  uint64_t numel() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
  }
};

std::string str(const json::value& v);
// The C type of a dtype the emitter stores; nullptr for others.
const char* c_type(const std::string& dtype);
// Packed integers (i4 u4 i2 u2 t2 i1 u1 t1, oinf.md: LSB first): bits per element, else 0.
// Kernels hold their elements as int32_t and move them through oi_get_DT / oi_set_DT.
unsigned packed_bits(const std::string& dtype);
// The C type of one element as kernels compute with it (int32_t for packed integers).
std::string value_type(const std::string& dtype);
// C reading element `index` of `ptr` (an expression), and the statement storing `v` there.
std::string load(const std::string& dtype, const std::string& ptr, const std::string& index);
std::string store(const std::string& dtype, const std::string& ptr, const std::string& index,
                  const std::string& v);
// The OINF dtype tag (oinf.md).
uint32_t dtype_tag(const std::string& dtype);
uint64_t dtype_size(const std::string& dtype);
// The bytes of `numel` elements of `dtype` (packed integers: whole bytes, LSB first).
uint64_t value_bytes(const std::string& dtype, uint64_t numel);
// A double as a C literal that reads back the same ("1.0", "0.10000000000000001").
std::string number(double v);
// The C literal of an @init or setting value for `dtype`.
std::string literal(const json::value& v, const std::string& dtype, const std::string& what);
// Element index of `in` inside the iteration space `shape` (numpy broadcasting), with the
// output element in `i`.
std::string index_expr(const std::vector<uint64_t>& in, const std::vector<uint64_t>& shape);
// "3u" for size_t arithmetic in generated code.
std::string u(uint64_t v);
// Row-major strides of `shape`, in elements.
std::vector<uint64_t> strides_of(const std::vector<uint64_t>& shape);

// Settings: refuses any key outside `allowed`; reads integers and integer lists.
void check_settings(const json::object& settings, const std::vector<std::string>& allowed,
                    const std::string& where);
int64_t int_setting(const json::object& settings, const char* key, int64_t fallback,
                    const std::string& where);
std::vector<int64_t> int_list_setting(const json::object& settings, const char* key,
                                      const std::string& where);

// The kernel an op generator is writing, as the generator sees it.
class KernelEnv {
 public:
  virtual ~KernelEnv() = default;
  virtual const Value& value(const std::string& name) const = 0;
  // An operand as written: a whole value, or one entry of a constant prefix table ("W[b]",
  // "W[0]"), which kernels see as a value of its own (p_W__b points at the entry).
  virtual const Value& operand(const std::string& text) const = 0;
  // A buffer of `bytes` per state, s->kacc_ID (per kernel, allocated by create).
  virtual std::string scratch(uint64_t bytes) = 0;
  // An int of the state, 0 after create (s->flag_ID_N): work done once, like packing weights.
  virtual std::string state_flag() = 0;
  virtual int64_t kernel_id() const = 0;
  // The generated code's prefix (NAME of NAME_step, NAME_ERR_RUN).
  virtual const std::string& prefix() const = 0;
  // The plan's `device` object (name, type, and for a CPU its `memory` caches and `cpu` ISA and
  // SIMD features, docs/synth.md); nullptr where the plan has none.
  virtual const json::object* device() const { return nullptr; }
  // A whole static function definition, written into NAME.c before the kernel being written
  // (kernels' per-shape helpers: micro-kernels with target attributes).
  virtual void function(const std::string& text) = 0;
};

// The profile the C being written follows (docs/synth.md), from the plan's device: hosted C
// (libc: allocation, stdio, files), or the freestanding profile a microcontroller's description
// selects (`cpu.profile`: no allocation, no stdio, no files; every buffer static). Set by
// generate_c for the plan it writes (ProfileScope); op generators read it.
struct EmitProfile {
  bool freestanding = false;
  // f32 math (exp, tanh, sigmoid, sqrt, ...) in float with libm's f functions instead of in
  // double, where the FPU has no double precision (`cpu.fpu` "sp" or "none"): a Cortex-M4F
  // would emulate every double operation in software.
  bool float_math = false;
};
const EmitProfile& emit_profile();
class ProfileScope {
 public:
  explicit ProfileScope(const EmitProfile& p);
  ~ProfileScope();
  ProfileScope(const ProfileScope&) = delete;
  ProfileScope& operator=(const ProfileScope&) = delete;

 private:
  EmitProfile saved_;
};

// "op 'name' (line N)" of one of a kernel's ops, for messages.
std::string op_where(const json::object& op);
// An input or output of a single-op kernel, as a whole value (table entries are refused).
const Value& whole_operand(const KernelEnv& env, const json::value& name, const json::object& op);

}  // namespace oi::c_emitter
